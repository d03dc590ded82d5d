import { describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { session } from '../team/fixtures.js';
import { expiringRequest, expiryJob, failedExpiry } from './fixtures.js';

// The panel's failed jobs: a merchant's own only, retried by owners and developers, audited.
const gw = useGateway();

/** A failed job of no merchant: processing a provider's callback is the operator's (the CLI's). */
async function operatorJob(): Promise<number> {
  const row = await gw.db
    .insertInto('jobs')
    .values({
      kind: 'callback.process',
      merchant_id: null,
      payload: JSON.stringify({ callbackEventId: 999_999 }),
      dedupe_key: `operator-${Date.now()}`,
      run_at: gw.clock.now(),
      attempts: 10,
      max_attempts: 10,
      last_error: 'no handler answered',
      failed_at: gw.clock.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const requestStatus = async (id: number) =>
  (await gw.db.selectFrom('payment_requests').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('failed jobs in the panel', () => {
  it('lists the merchant’s own failed jobs only, and a retry runs the job again', async () => {
    const [m, other] = [await gw.merchant(), await gw.merchant()];
    const mine = await failedExpiry(gw, m);
    const theirs = await failedExpiry(gw, other);
    const operators = await operatorJob();
    const developer = await teammate(gw, m, 'developer');
    const dev = await session(gw, developer.email);

    const list = await gw.call('GET', '/jobs/failed', dev);
    expect(list.status, list.text).toBe(200);
    expect(list.body).toEqual({
      data: [
        {
          id: mine.jobId,
          kind: 'payment_request.expire',
          merchantId: m.merchantId,
          status: 'failed',
          attempts: 10,
          maxAttempts: 10,
          payload: { paymentRequestId: mine.requestId, merchantId: m.merchantId },
          lastError: 'could not extend file: No space left on device',
          runAt: expect.any(String),
          failedAt: expect.any(String),
          createdAt: expect.any(String),
        },
      ],
      hasMore: false,
      nextCursor: null,
    });
    // Another merchant's job and the operator's are not found, not merely hidden.
    expectErrorGuide(await gw.call('POST', `/jobs/${theirs.jobId}/retry`, dev), 'NOT_FOUND');
    expectErrorGuide(await gw.call('POST', `/jobs/${operators}/retry`, dev), 'NOT_FOUND');
    expect(await expiryJob(gw.db, theirs.requestId)).toMatchObject({ failed_at: expect.any(Date) });

    const retried = await gw.call('POST', `/jobs/${mine.jobId}/retry`, dev);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({
      id: mine.jobId,
      status: 'pending',
      attempts: 0,
      failedAt: null,
      runAt: gw.clock.now().toISOString(),
    });
    expect((await gw.call('GET', '/jobs/failed', dev)).body.data).toEqual([]);
    // Not run yet: the request stays open until the job loop takes the job.
    expect(await requestStatus(mine.requestId)).toBe('open');
    await gw.runJobs();
    expect(await requestStatus(mine.requestId)).toBe('expired');
    expect(await expiryJob(gw.db, mine.requestId)).toMatchObject({ attempts: 1, completed_at: gw.clock.now() });

    // The owner reads who retried it.
    const owner = await session(gw, m.email);
    const audit = await gw.call('GET', '/audit-log', owner);
    expect(audit.body.data[0]).toMatchObject({
      action: 'job.retried',
      target: `/jobs/${mine.jobId}/retry`,
      by: developer.email,
      requestId: retried.headers.get('x-request-id'),
    });
  });

  it('retries only a failed job: a pending or completed one is a conflict', async () => {
    const m = await gw.merchant();
    const pending = await expiringRequest(gw, m);
    const pendingJob = (await expiryJob(gw.db, pending))!;
    const owner = await session(gw, m.email);
    const refused = await gw.call('POST', `/jobs/${pendingJob.id}/retry`, owner);
    expectErrorGuide(refused, 'CONFLICT');
    expect(refused.body.details).toEqual({ status: 'pending' });

    gw.clock.advance(61);
    await gw.runJobs();
    const done = await gw.call('POST', `/jobs/${pendingJob.id}/retry`, owner);
    expectErrorGuide(done, 'CONFLICT');
    expect(done.body.details).toEqual({ status: 'completed' });
    expectErrorGuide(await gw.call('POST', '/jobs/999999999/retry', owner), 'NOT_FOUND');
    const audit = await gw.call('GET', '/audit-log', owner);
    expect(audit.body.data.filter((entry: { action: string }) => entry.action === 'job.retried')).toEqual([]);
  });

  it('shows a viewer the failed jobs but refuses the viewer’s retry, and the merchant API has no such route', async () => {
    const m = await gw.merchant();
    const failed = await failedExpiry(gw, m);
    const viewer = await teammate(gw, m, 'viewer');
    const s = await session(gw, viewer.email);
    const list = await gw.call('GET', '/jobs/failed', s);
    expect(list.body.data.map((job: { id: number }) => job.id)).toEqual([failed.jobId]);

    const refused = await gw.call('POST', `/jobs/${failed.jobId}/retry`, s);
    expectErrorGuide(refused, 'INSUFFICIENT_PERMISSIONS');
    expect(refused.body.message).toBe('Only owners or developers of the merchant may do this');
    expect(await expiryJob(gw.db, failed.requestId)).toMatchObject({ attempts: 10, failed_at: expect.any(Date) });
    const owner = await session(gw, m.email);
    expect((await gw.call('GET', '/audit-log', owner)).body.data).toEqual([]);

    // A panel route: an API key is no credential for it.
    expectErrorGuide(await gw.call('GET', '/jobs/failed', { apiKey: m.apiKey }), 'UNAUTHORIZED');
  });

  it('pages the failed jobs newest first', async () => {
    const m = await gw.merchant();
    const jobs = [await failedExpiry(gw, m), await failedExpiry(gw, m), await failedExpiry(gw, m)];
    const owner = await session(gw, m.email);
    const first = await gw.call('GET', '/jobs/failed?limit=2', owner);
    expect(first.body.data.map((job: { id: number }) => job.id)).toEqual([jobs[2].jobId, jobs[1].jobId]);
    expect(first.body.hasMore).toBe(true);
    const second = await gw.call('GET', `/jobs/failed?limit=2&cursor=${first.body.nextCursor}`, owner);
    expect(second.body).toMatchObject({ data: [{ id: jobs[0].jobId }], hasMore: false, nextCursor: null });
  });
});
