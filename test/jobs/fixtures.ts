import { expect } from 'vitest';
import { dedupeKey } from '../../src/jobs/catalog.js';
import type { Db } from '../../src/storage/db.js';
import { refuseWrites } from '../helpers/faults.js';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';
import { createRequest, inSeconds } from '../payment-requests/fixtures.js';

/** A payment request that expires `seconds` from the manual clock's now: its expiry is a job. */
export async function expiringRequest(gw: TestGateway, m: TestMerchant, seconds = 60): Promise<number> {
  const created = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, seconds) });
  return created.paymentRequestId;
}

/** The expiry job of a payment request, or undefined once it is gone. */
export const expiryJob = (db: Db, paymentRequestId: number) =>
  db
    .selectFrom('jobs')
    .selectAll()
    .where('dedupe_key', '=', dedupeKey('payment_request.expire', paymentRequestId))
    .executeTakeFirst();

/**
 * A payment request whose expiry job failed for real: the store refuses to expire it (as a full disk
 * would) on every one of the job's 10 attempts, an hour of the manual clock apart, then takes writes again.
 * Answers the request's and the job's ids.
 */
export async function failedExpiry(gw: TestGateway, m: TestMerchant): Promise<{ requestId: number; jobId: number }> {
  const requestId = await expiringRequest(gw, m);
  const lift = await refuseWrites(gw.db, {
    name: `refuse_expiry_${requestId}`,
    table: 'payment_requests',
    event: 'update of status',
    when: `new.id = ${requestId} and new.status = 'expired'`,
    message: 'could not extend file: No space left on device',
  });
  try {
    for (let attempt = 1; attempt <= 10; attempt++) {
      gw.clock.advance(3600);
      await gw.runJobs();
    }
  } finally {
    await lift();
  }
  const job = await expiryJob(gw.db, requestId);
  expect(job).toMatchObject({ attempts: 10, failed_at: expect.any(Date) });
  return { requestId, jobId: job!.id };
}
