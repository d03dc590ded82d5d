import type { Db } from '../../storage/db.js';

export async function insertSession(
  db: Db,
  values: {
    userId: number;
    merchantId: number;
    tokenHash: string;
    createdAt: Date;
    expiresAt: Date;
    generation: number;
  },
): Promise<number> {
  const row = await db
    .insertInto('panel_sessions')
    .values({
      user_id: values.userId,
      merchant_id: values.merchantId,
      token_hash: values.tokenHash,
      created_at: values.createdAt,
      expires_at: values.expiresAt,
      token_generation: values.generation,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The unexpired session of a token hash, with who it is for, if the user is still on the team and has
 * not changed or reset their password since (token generation). One indexed read.
 */
export async function findLiveSession(db: Db, tokenHash: string, now: Date) {
  return db
    .selectFrom('panel_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select([
      's.id',
      's.created_at',
      's.expires_at',
      'u.id as user_id',
      'u.email',
      'u.role',
      'm.id as merchant_id',
      'm.name as merchant_name',
      'm.status as merchant_status',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .where('u.removed_at', 'is', null)
    .whereRef('s.token_generation', '=', 'u.token_generation')
    .executeTakeFirst();
}

export async function extendSession(db: Db, id: number, expiresAt: Date): Promise<void> {
  await db.updateTable('panel_sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: number): Promise<void> {
  await db.deleteFrom('panel_sessions').where('id', '=', id).execute();
}

/** A user's sessions that are over: cleared at each sign-in, so the table holds little more than live ones. */
export async function deleteExpiredSessions(db: Db, userId: number, now: Date): Promise<void> {
  await db.deleteFrom('panel_sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

export async function findMerchantName(db: Db, merchantId: number): Promise<string> {
  const row = await db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirstOrThrow();
  return row.name;
}
