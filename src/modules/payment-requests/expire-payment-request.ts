import { inTransaction } from '../../storage/db-context.js';
import type { PaymentRequestsContext } from './context.js';
import { dedupeKey, type JobPayloads } from '../../jobs/catalog.js';
import { enqueueJob, type JobHandlers } from '../../jobs/queue.js';
import type { Db } from '../../storage/db.js';
import { recordEvent } from '../events/index.js';
import { presentPaymentRequest } from './present.js';
import { expireOpenPaymentRequest } from './repository.js';

/** Written in the creating transaction, so every request with an expiry has exactly one job. */
export async function scheduleExpiry(
  trx: Db,
  request: { id: number; merchant_id: number; expires_at: Date },
): Promise<void> {
  await enqueueJob(trx, 'payment_request.expire', {
    payload: { paymentRequestId: request.id, merchantId: request.merchant_id },
    runAt: request.expires_at,
    merchantId: request.merchant_id,
    dedupeKey: dedupeKey('payment_request.expire', request.id),
  });
}

/**
 * Marks the request expired if it is still open. Anything else (paid, canceled, already
 * expired, or a payment in progress) is final for this job: the conditional update does nothing.
 */
export async function expirePaymentRequest(
  ctx: Pick<PaymentRequestsContext, 'db' | 'clock' | 'config'>,
  input: JobPayloads['payment_request.expire'],
) {
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    const expired = await expireOpenPaymentRequest(trx.db, input.merchantId, input.paymentRequestId, now);
    if (expired) {
      await recordEvent(trx.db, 'payment_request.expired', {
        merchantId: expired.merchant_id,
        livemode: expired.livemode,
        objectId: expired.id,
        payload: presentPaymentRequest(expired, now, ctx.config.checkoutUrl),
        createdAt: now,
      });
    }
    return expired;
  });
}

export function paymentRequestJobs(ctx: Pick<PaymentRequestsContext, 'db' | 'clock' | 'config'>): JobHandlers {
  return {
    'payment_request.expire': async (payload) => {
      await expirePaymentRequest(ctx, payload);
    },
  };
}
