import { randomBase62 } from '../lib/crypto.js';
import type { Config } from '../config.js';
import type { Db } from './db.js';

export interface Secrets {
  jwtSecret: string;
  callbackSigningSecret: string;
}

/**
 * Production takes secrets from the environment (config validation requires them).
 * Development generates each once and keeps it in storage, so every instance and every
 * restart on the same store agrees on it.
 */
export async function loadSecrets(db: Db, config: Config): Promise<Secrets> {
  return {
    jwtSecret: config.jwtSecret ?? (await persisted(db, 'jwt_secret')),
    callbackSigningSecret: config.callbackSigningSecret ?? (await persisted(db, 'callback_signing_secret')),
  };
}

async function persisted(db: Db, name: string): Promise<string> {
  await db
    .insertInto('system_secrets')
    .values({ name, value: randomBase62(48) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('system_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
