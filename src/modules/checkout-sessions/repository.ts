import type { Insertable } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { CheckoutSessionsTable } from './tables.js';

export async function insertCheckoutSession(db: Db, values: Insertable<CheckoutSessionsTable>) {
  return db.insertInto('checkout_sessions').values(values).returning(['id', 'expires_at']).executeTakeFirstOrThrow();
}

/** The session behind a token hash, if it has not expired at `now`, with its merchant's status and name. */
export async function findUnexpiredSession(db: Db, tokenHash: string, now: Date) {
  return db
    .selectFrom('checkout_sessions as s')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select([
      's.id',
      's.merchant_id',
      's.livemode',
      's.payment_request_id',
      'm.status as merchant_status',
      'm.name as merchant_name',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}
