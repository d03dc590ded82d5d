import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { recordAttempt, type DeliveryOutcome } from '../../src/modules/notifications/repository.js';
import { groupStats } from '../../src/storage/group-commit.js';
import { useGateway } from '../helpers/gateway.js';
import { pendingDelivery } from './deliveries.js';

// The records of concurrent sends (an endpoint's many sends ending together) go to the store as one
// statement (group commit, on by default): each attempt must be logged and each delivery settled
// exactly as its record alone would, whatever the mix of outcomes.
const gw = useGateway();

it('logs each attempt and settles each delivery as alone, when concurrent records go as one statement', async () => {
  const m = await gw.merchant();
  const now = gw.clock.now();
  const later = new Date(now.getTime() + 60_000);
  // Each receiver's answer and what it makes of the delivery: done, due again later, failed for good.
  const cases = Array.from({ length: 12 }, (_, i) => {
    const statusCode = [200, 503, 410][i % 3];
    const outcome: DeliveryOutcome =
      statusCode === 200
        ? { status: 'succeeded', at: now }
        : statusCode === 503
          ? { status: 'pending', nextAttemptAt: new Date(later.getTime() + i * 1000) }
          : { status: 'failed', at: now };
    const error = statusCode === 200 ? null : `WEBHOOK_DELIVERY_FAILED: the receiver answered ${statusCode}`;
    return { statusCode, outcome, error, url: `https://hooks.example/r${i}`, durationMs: 10 + i };
  });
  const ids = [];
  for (const [i, { url }] of cases.entries())
    ids.push(
      await pendingDelivery(gw.db, {
        merchantId: m.merchantId,
        url,
        orderKey: `record-${i}`,
        due: now,
        attempts: 1,
      }),
    );
  await sql`update webhook_deliveries set locked_until = ${later} where id in (${sql.join(ids)})`.execute(gw.db);
  const eventOf = new Map(
    (
      await sql<{
        id: number;
        event_id: number;
      }>`select id, event_id from webhook_deliveries where id in (${sql.join(ids)})`.execute(gw.db)
    ).rows.map((row) => [Number(row.id), Number(row.event_id)]),
  );

  const before = { ...groupStats(gw.db)! };
  await Promise.all(
    ids.map((id, i) =>
      recordAttempt(
        gw.db,
        {
          deliveryId: id,
          eventId: eventOf.get(id)!,
          at: now,
          url: cases[i].url,
          statusCode: cases[i].statusCode,
          durationMs: cases[i].durationMs,
          error: cases[i].error,
        },
        cases[i].outcome,
      ),
    ),
  );
  // The first went alone; the others waited for it and went together.
  const after = groupStats(gw.db)!;
  expect(after.rows - before.rows).toBe(ids.length - 1);
  expect(after.statements - before.statements).toBe(1);

  const deliveries = (
    await sql<{
      id: number;
      status: string;
      completed_at: Date | null;
      next_attempt_at: Date;
      locked_until: Date | null;
    }>`select id, status, completed_at, next_attempt_at, locked_until from webhook_deliveries where id in (${sql.join(ids)}) order by id`.execute(
      gw.db,
    )
  ).rows;
  expect(
    deliveries.map((d) => [d.status, d.completed_at?.getTime() ?? null, d.next_attempt_at.getTime(), d.locked_until]),
  ).toEqual(
    cases.map(({ outcome: o }) =>
      o.status === 'pending'
        ? ['pending', null, o.nextAttemptAt.getTime(), null]
        : [o.status, now.getTime(), now.getTime(), null],
    ),
  );
  const attempts = (
    await sql<{
      delivery_id: number;
      event_id: number;
      status_code: number;
      duration_ms: number;
      error: string | null;
      url: string;
    }>`
      select delivery_id, event_id, status_code, duration_ms, error, url from webhook_attempts
      where delivery_id in (${sql.join(ids)}) order by delivery_id`.execute(gw.db)
  ).rows;
  expect(attempts.map((a) => [Number(a.delivery_id), Number(a.event_id), a.status_code, a.duration_ms, a.url])).toEqual(
    ids.map((id, i) => [id, eventOf.get(id), cases[i].statusCode, cases[i].durationMs, cases[i].url]),
  );
  expect(attempts.map((a) => a.error === null)).toEqual(cases.map((c) => c.statusCode === 200));
});
