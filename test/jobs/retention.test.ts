import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { expiringRequest, expiryJob, failedExpiry } from './fixtures.js';

// Completed jobs are deleted JOB_RETENTION_DAYS after they completed; failed ones wait for a retry.
const gw = useGateway({ env: { JOB_RETENTION_DAYS: '3' } });
const DAY = 24 * 3600;

describe('the job retention', () => {
  it('deletes completed jobs once past the retention, keeps younger ones and every failed one', async () => {
    const m = await gw.merchant();
    const failed = await failedExpiry(gw, m);

    const older = await expiringRequest(gw, m);
    gw.clock.advance(61);
    await gw.runJobs();
    const olderJob = await expiryJob(gw.db, older);
    expect(olderJob?.completed_at).toEqual(gw.clock.now());

    gw.clock.advance(DAY);
    const younger = await expiringRequest(gw, m);
    gw.clock.advance(61);
    await gw.runJobs();
    expect((await expiryJob(gw.db, younger))?.completed_at).toEqual(gw.clock.now());

    // Three days after the older one completed, not yet after the younger one.
    gw.clock.advance(2 * DAY - 61 + 1);
    await gw.runJobs();
    expect(await expiryJob(gw.db, older)).toBeUndefined();
    expect(await expiryJob(gw.db, younger)).toMatchObject({ completed_at: expect.any(Date) });
    expect(await expiryJob(gw.db, failed.requestId)).toMatchObject({ id: failed.jobId, attempts: 10 });

    gw.clock.advance(DAY + 61);
    await gw.runJobs();
    expect(await expiryJob(gw.db, younger)).toBeUndefined();
    // A failed job is work still owed, however old.
    gw.clock.advance(365 * DAY);
    await gw.runJobs();
    expect(await expiryJob(gw.db, failed.requestId)).toMatchObject({ id: failed.jobId, failed_at: expect.any(Date) });
  });

  it('deletes a backlog past the retention 500 jobs at a time', async () => {
    const m = await gw.merchant();
    // More than one batch (500) of completed jobs, written as the queue leaves them.
    const completedAt = gw.clock.now();
    await gw.db
      .insertInto('jobs')
      .values(
        Array.from({ length: 1200 }, (_, i) => ({
          kind: 'notice.send',
          merchant_id: m.merchantId,
          payload: '{}',
          dedupe_key: `backlog-${m.merchantId}-${i}`,
          run_at: completedAt,
          max_attempts: 10,
          completed_at: completedAt,
        })),
      )
      .execute();
    const backlog = () =>
      gw.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('dedupe_key', 'like', `backlog-${m.merchantId}-%`)
        .executeTakeFirstOrThrow();
    expect(Number((await backlog()).n)).toBe(1200);
    gw.clock.advance(3 * DAY + 1);
    const left = [];
    for (let run = 0; run < 3; run++) {
      await gw.runJobs();
      left.push(Number((await backlog()).n));
    }
    // Short statements holding few row locks; the loop runs a sweep that found work again on its next beat.
    expect(left).toEqual([700, 200, 0]);
  });
});
