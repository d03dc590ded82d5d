import { sql } from 'kysely';
import type { MerchantScope } from '../../lib/scope.js';
import type { Db } from '../../storage/db.js';

/**
 * The dashboard's aggregates, computed at query time from payments (read here, never written) in one
 * pass over the covering index payments_report (merchant_id, livemode, created_at) include (status,
 * currency, amount, decline_code, decline_reason, failure_code): docs/decisions.md "Reporting" says why
 * not a rollup.
 */
// Grouped as a date (cheap per row), turned into text once per group.
const DAY = sql`(created_at at time zone 'UTC')::date`;

/**
 * Per UTC day, currency, status, decline code and failure code: attempts, amount (minor units), one
 * decline reason.
 * Grouped by plain columns, so the planner knows the groups are few (the extended statistics of
 * migrations 0012 and 0028) and hashes them instead of sorting every payment of the range.
 */
export function dailyTotalsQuery(db: Db, scope: MerchantScope, from: Date, until: Date) {
  return db
    .selectFrom('payments')
    .select([
      sql<string>`${DAY}::text`.as('day'),
      'currency',
      'status',
      'decline_code',
      'failure_code',
      sql<string | null>`min(decline_reason)`.as('decline_reason'),
      sql<string>`count(*)`.as('count'),
      sql<string>`sum(amount)`.as('amount'),
    ])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('created_at', '>=', from)
    .where('created_at', '<', until)
    .groupBy(sql`${DAY}, currency, status, decline_code, failure_code`)
    .orderBy(sql`${DAY}`)
    .orderBy('currency');
}

export const dailyTotals = (db: Db, scope: MerchantScope, from: Date, until: Date) =>
  dailyTotalsQuery(db, scope, from, until).execute();
