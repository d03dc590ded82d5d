import { sql } from 'kysely';
import type { MerchantScope } from '../../lib/scope.js';
import type { Db } from '../../storage/db.js';

/**
 * The dashboard's aggregates, computed at query time from payments (read here, never written) over
 * the covering index payments_report (merchant_id, livemode, created_at) include (status, currency,
 * amount, decline_code, decline_reason): docs/decisions.md "Reporting" says why not a rollup table.
 */
const APPROVED = sql<boolean>`status in ('authorized', 'succeeded')`;

function paymentsBetween(db: Db, scope: MerchantScope, from: Date, until: Date) {
  return db
    .selectFrom('payments')
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('created_at', '>=', from)
    .where('created_at', '<', until);
}

/** Per UTC day and currency: attempts, approved, declined, approved volume (minor units). */
export function dailyTotals(db: Db, scope: MerchantScope, from: Date, until: Date) {
  const day = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`;
  return paymentsBetween(db, scope, from, until)
    .select([
      day.as('day'),
      'currency',
      sql<string>`count(*)`.as('count'),
      sql<string>`count(*) filter (where ${APPROVED})`.as('approved'),
      sql<string>`count(*) filter (where status = 'failed')`.as('declined'),
      sql<string>`coalesce(sum(amount) filter (where ${APPROVED}), 0)`.as('volume'),
    ])
    .groupBy([day, 'currency'])
    .orderBy(day)
    .orderBy('currency')
    .execute();
}

export function topDeclineCodes(db: Db, scope: MerchantScope, from: Date, until: Date, limit: number) {
  return paymentsBetween(db, scope, from, until)
    .select([
      'decline_code',
      sql<string | null>`min(decline_reason)`.as('decline_reason'),
      sql<string>`count(*)`.as('count'),
    ])
    .where('status', '=', 'failed')
    .where('decline_code', 'is not', null)
    .groupBy('decline_code')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('decline_code')
    .limit(limit)
    .$narrowType<{ decline_code: string }>()
    .execute();
}
