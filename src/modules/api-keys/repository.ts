import type { Selectable } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { Database } from '../../storage/schema.js';
import type { KeyMode } from './tables.js';

export interface ActiveKey {
  keyId: number;
  userId: number;
  mode: KeyMode;
  merchantId: number;
  /** Named through the table: the merchants module, which owns the status, imports this module. */
  merchantStatus: Selectable<Database['merchants']>['status'];
}

/** One indexed read; the key cache (key-cache.ts) keeps its answer while it is exact. */
export async function findActiveKey(db: Db, keyHash: string): Promise<ActiveKey | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select(['k.id as keyId', 'k.user_id as userId', 'k.mode', 'm.id as merchantId', 'm.status as merchantStatus'])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes the user's active keys, of one mode or (mode undefined) all; how many were active. */
export async function revokeActiveKeys(db: Db, userId: number, mode: KeyMode | undefined, now: Date): Promise<number> {
  let update = db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (mode) update = update.where('mode', '=', mode);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertKey(
  db: Db,
  values: { merchantId: number; userId: number; mode: KeyMode; hash: string; displayPrefix: string },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      merchant_id: values.merchantId,
      user_id: values.userId,
      mode: values.mode,
      key_hash: values.hash,
      display_prefix: values.displayPrefix,
    })
    .execute();
}

/** Whether any live key was ever issued on this store, revoked ones included. */
export async function liveKeyEverIssued(db: Db): Promise<boolean> {
  return (
    (await db.selectFrom('api_keys').select('id').where('mode', '=', 'live').limit(1).executeTakeFirst()) !== undefined
  );
}

/** The key's owner, locked so concurrent rotations queue up; a user removed from the team is none. */
export async function lockUser(db: Db, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'merchant_id', 'role'])
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** A key seen in a public place (the legacy checkout URL): flagged once, the first sighting kept. */
export async function markKeyExposed(db: Db, keyId: number, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ exposed_at: now })
    .where('id', '=', keyId)
    .where('exposed_at', 'is', null)
    .execute();
}

/** The user's keys in use, one per mode at most: what the control panel shows instead of the keys. */
export async function findActiveKeysOfUser(db: Db, userId: number) {
  return db
    .selectFrom('api_keys')
    .select(['mode', 'display_prefix', 'created_at', 'exposed_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('mode')
    .execute();
}
