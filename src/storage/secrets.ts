import { randomBytes } from 'node:crypto';
import { randomBase62 } from '../lib/crypto.js';
import type { Config } from '../config.js';
import type { Db } from './db.js';

export interface Secrets {
  jwtSecret: string;
  callbackSigningSecret: string;
  /** "id:base64key,…", first is current. */
  cardEncryptionKeys: string;
  cardFingerprintSecret: string;
  idempotencyFingerprintSecret: string;
}

/** Whether the card encryption key is kept in the store itself (development without CARD_ENCRYPTION_KEYS). */
export const cardKeyInStore = (config: Config): boolean => config.cardEncryptionKeys === undefined;

/**
 * Production takes secrets from the environment (config validation requires them).
 * Development generates each once and keeps it in storage, so every instance and every
 * restart on the same store agrees on it. That makes a copy of the store enough to decrypt
 * its card numbers (see api-keys/refuse-live-keys-on-development-store.ts).
 */
export async function loadSecrets(db: Db, config: Config): Promise<Secrets> {
  return {
    jwtSecret: config.jwtSecret ?? (await persisted(db, 'jwt_secret')),
    callbackSigningSecret: config.callbackSigningSecret ?? (await persisted(db, 'callback_signing_secret')),
    cardEncryptionKeys:
      config.cardEncryptionKeys ??
      (await persisted(db, 'card_encryption_keys', () => `dev1:${randomBytes(32).toString('base64')}`)),
    cardFingerprintSecret: config.cardFingerprintSecret ?? (await persisted(db, 'card_fingerprint_secret')),
    idempotencyFingerprintSecret:
      config.idempotencyFingerprintSecret ?? (await persisted(db, 'idempotency_fingerprint_secret')),
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
