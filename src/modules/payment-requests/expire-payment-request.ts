import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { expireOpenPaymentRequest } from './repository.js';

export const EXPIRE_JOB_KIND = 'payment_request.expire';

interface ExpirePayload {
  paymentRequestId: number;
  merchantId: number;
}

/** Written in the creating transaction, so every request with an expiry has exactly one job. */
export async function scheduleExpiry(trx: Db, request: { id: number; merchant_id: number; expires_at: Date }): Promise<void> {
  const payload: ExpirePayload = { paymentRequestId: request.id, merchantId: request.merchant_id };
  await enqueueJob(trx, {
    kind: EXPIRE_JOB_KIND,
    payload,
    runAt: request.expires_at,
    merchantId: request.merchant_id,
    dedupeKey: `${EXPIRE_JOB_KIND}:${request.id}`,
  });
}

/**
 * Marks the request expired if it is still open. Anything else (paid, canceled, already
 * expired, or a payment in progress) is final for this job: the conditional update does nothing.
 */
export async function expirePaymentRequest(db: Db, clock: Clock, payload: ExpirePayload) {
  return expireOpenPaymentRequest(db, payload.merchantId, payload.paymentRequestId, clock.now());
}

export function expiryJob(deps: { db: Db; clock: Clock }): JobDefinition<ExpirePayload> {
  return {
    kind: EXPIRE_JOB_KIND,
    maxAttempts: 10,
    timeoutSeconds: 30,
    handle: async (payload) => {
      await expirePaymentRequest(deps.db, deps.clock, payload);
    },
  };
}
