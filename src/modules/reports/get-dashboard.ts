import type { DbContext } from '../../context.js';
import { invalidFormat } from '../../errors.js';
import { decimalString } from '../../lib/money.js';
import type { MerchantScope } from '../../lib/scope.js';
import { dailyTotals, topDeclineCodes } from './repository.js';
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS, type Dashboard, type DashboardQuery } from './schemas.js';

const DAY_MS = 86_400_000;
const TOP_DECLINES = 5;
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

/** Volume and count per day, approval rate and top decline reasons of one merchant's payments in the key's mode. */
export async function getDashboard(
  ctx: DbContext,
  input: { scope: MerchantScope; query: DashboardQuery },
): Promise<Dashboard> {
  const { from, until } = rangeOf(input.query, ctx.clock.now());
  const [days, declines] = await Promise.all([
    dailyTotals(ctx.db, input.scope, from, until),
    topDeclineCodes(ctx.db, input.scope, from, until, TOP_DECLINES),
  ]);
  let approved = 0;
  let declined = 0;
  const perDay = days.map((row) => {
    approved += Number(row.approved);
    declined += Number(row.declined);
    const volume = decimalString(Number(row.volume), row.currency);
    return {
      day: row.day,
      currency: row.currency,
      count: Number(row.count),
      approved: Number(row.approved),
      declined: Number(row.declined),
      volume: Number(volume),
      volumeMinor: Number(row.volume),
    };
  });
  return {
    from: isoDay(from),
    to: isoDay(new Date(until.getTime() - DAY_MS)),
    livemode: input.scope.livemode,
    days: perDay,
    approval: { approved, declined, rate: approved + declined === 0 ? null : approved / (approved + declined) },
    topDeclineReasons: declines.map((row) => ({
      declineCode: row.decline_code,
      declineReason: row.decline_reason,
      count: Number(row.count),
    })),
  };
}
