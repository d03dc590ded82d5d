import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { recordEvent } from '../outbox.js';
import { presentPaymentRequest } from './present.js';
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
export async function expirePaymentRequest(db: Db, clock: Clock, checkoutUrl: string, payload: ExpirePayload) {
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const expired = await expireOpenPaymentRequest(trx, payload.merchantId, payload.paymentRequestId, now);
    if (expired) {
      await recordEvent(trx, {
        merchantId: expired.merchant_id,
        livemode: expired.livemode,
        type: 'payment_request.expired',
        objectId: expired.id,
        object: presentPaymentRequest(expired, now, checkoutUrl) as unknown as Record<string, unknown>,
        now,
      });
    }
    return expired;
  });
}

export function expiryJob(deps: { db: Db; clock: Clock; checkoutUrl: string }): JobDefinition<ExpirePayload> {
  return {
    kind: EXPIRE_JOB_KIND,
    maxAttempts: 10,
    timeoutSeconds: 30,
    handle: async (payload) => {
      await expirePaymentRequest(deps.db, deps.clock, deps.checkoutUrl, payload);
    },
  };
}
