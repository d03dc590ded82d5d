import type { DbContext } from '../../storage/db-context.js';
import { invalidFormat } from '../../errors.js';
import { decimalString } from '../../lib/money.js';
import type { MerchantScope } from '../../lib/scope.js';
import { failureReason } from '../payment-failures.js';
import { dailyTotals } from './repository.js';
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS, type Dashboard, type DashboardQuery } from './schemas.js';

const DAY_MS = 86_400_000;
const TOP_DECLINES = 5;
/** Approved by the issuer: authorized (capture pending) or captured. */
const APPROVED = new Set<string>(['authorized', 'succeeded']);
const isoDay = (at: Date) => at.toISOString().slice(0, 10);

/** The UTC days asked for: `to` defaults to today, `from` to 29 days before `to`; at most a year and a day. */
function rangeOf(query: DashboardQuery, now: Date): { from: Date; until: Date } {
  const to = new Date(`${query.to ?? isoDay(now)}T00:00:00Z`);
  const from =
    query.from === undefined
      ? new Date(to.getTime() - (DEFAULT_RANGE_DAYS - 1) * DAY_MS)
      : new Date(`${query.from}T00:00:00Z`);
  if (from > to) throw invalidFormat('from', query.from, 'from must not be after to');
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw invalidFormat('from', query.from, `the range may span at most ${MAX_RANGE_DAYS} days`);
  return { from, until: new Date(to.getTime() + DAY_MS) };
}

type Day = Dashboard['days'][number];

/** Volume and count per day, approval rate and top decline reasons of one merchant's payments in the key's mode. */
export async function getDashboard(
  ctx: DbContext,
  input: { scope: MerchantScope; query: DashboardQuery },
): Promise<Dashboard> {
  const { from, until } = rangeOf(input.query, ctx.clock.now());
  const rows = await dailyTotals(ctx.db, input.scope, from, until);
  // One row per day, currency, status and decline code: folded into days and decline codes.
  const days = new Map<string, Day>();
  const declines = new Map<string, { declineCode: string; declineReason: string | null; count: number }>();
  for (const row of rows) {
    const key = `${row.day} ${row.currency}`;
    const day = days.get(key) ?? {
      day: row.day,
      currency: row.currency,
      count: 0,
      approved: 0,
      declined: 0,
      volume: 0,
      volumeMinor: 0,
    };
    const count = Number(row.count);
    day.count += count;
    if (APPROVED.has(row.status)) {
      day.approved += count;
      day.volumeMinor += Number(row.amount);
    }
    if (row.status === 'failed') day.declined += count;
    days.set(key, day);
    if (row.status === 'failed') {
      // Every failed payment has a reason: the issuer's decline code, else its failure (3-D Secure, UPI…).
      const declineCode = row.decline_code ?? row.failure_code ?? 'failed';
      const code = declines.get(declineCode) ?? {
        declineCode,
        declineReason: row.decline_code === null ? failureReason(row.failure_code) : row.decline_reason,
        count: 0,
      };
      code.count += count;
      declines.set(declineCode, code);
    }
  }
  const perDay = [...days.values()].map((day) => ({
    ...day,
    volume: Number(decimalString(day.volumeMinor, day.currency)),
  }));
  const approved = perDay.reduce((sum, day) => sum + day.approved, 0);
  const declined = perDay.reduce((sum, day) => sum + day.declined, 0);
  return {
    from: isoDay(from),
    to: isoDay(new Date(until.getTime() - DAY_MS)),
    livemode: input.scope.livemode,
    days: perDay,
    approval: { approved, declined, rate: approved + declined === 0 ? null : approved / (approved + declined) },
    topDeclineReasons: [...declines.values()]
      .sort((a, b) => b.count - a.count || a.declineCode.localeCompare(b.declineCode))
      .slice(0, TOP_DECLINES),
  };
}
