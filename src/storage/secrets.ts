import { randomBytes } from 'node:crypto';
import { randomBase62 } from '../lib/crypto.js';
import type { Config } from '../config.js';
import { liveKeyEverIssued } from '../modules/api-keys/repository.js';
import type { Db } from './db.js';

export interface Secrets {
  jwtSecret: string;
  callbackSigningSecret: string;
  /** "id:base64key,…", first is current. */
  cardEncryptionKeys: string;
  cardFingerprintSecret: string;
}

/** Whether the card encryption key is kept in the store itself (development without CARD_ENCRYPTION_KEYS). */
export const cardKeyInStore = (config: Config): boolean => config.cardEncryptionKeys === undefined;

/**
 * Production takes secrets from the environment (config validation requires them).
 * Development generates each once and keeps it in storage, so every instance and every
 * restart on the same store agrees on it. That makes a copy of the store enough to decrypt
 * its card numbers, so a store that ever issued a live key is refused before anything is written.
 */
export async function loadSecrets(db: Db, config: Config): Promise<Secrets> {
  if (cardKeyInStore(config) && (await liveKeyEverIssued(db))) {
    throw new Error(
      'this store has issued live API keys (svc_live_sk_…), but its card encryption key would be kept in the same ' +
        'database (development secrets), so a copy of the store could decrypt its card numbers. Set CARD_ENCRYPTION_KEYS ' +
        'and CARD_FINGERPRINT_SECRET in the environment (or NODE_ENV=production with all its secrets), or use a fresh ' +
        'development store. Nothing was changed.',
    );
  }
  return {
    jwtSecret: config.jwtSecret ?? (await persisted(db, 'jwt_secret')),
    callbackSigningSecret: config.callbackSigningSecret ?? (await persisted(db, 'callback_signing_secret')),
    cardEncryptionKeys:
      config.cardEncryptionKeys ?? (await persisted(db, 'card_encryption_keys', () => `dev1:${randomBytes(32).toString('base64')}`)),
    cardFingerprintSecret: config.cardFingerprintSecret ?? (await persisted(db, 'card_fingerprint_secret')),
  };
}

async function persisted(db: Db, name: string, generate = () => randomBase62(48)): Promise<string> {
  await db
    .insertInto('system_secrets')
    .values({ name, value: generate() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('system_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
