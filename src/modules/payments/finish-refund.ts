import type { DbContext } from '../../storage/db-context.js';
import { recordEvent } from '../events/index.js';
import { recordRefundOnRequest } from '../payment-requests/index.js';
import { finishRefund, lockRefund, releaseRefund, type PaymentRow, type RefundRow } from './repository.js';

/** What the processor said of a refund: its own id for it (when it gave one) and where it stands. */
export interface RefundOutcome {
  refundId: string | null;
  status: 'succeeded' | 'pending' | 'failed';
}

/**
 * Records the processor's word on a refund of `payment`: its answer to the refund call (refund.ts) or
 * its webhook (on-callback.ts). The caller owns the transaction. The refund is locked and only a
 * pending one changes, so whoever records a final word first wins and a late or repeated one changes
 * nothing (undefined).
 * - succeeded: the payment request carries the refunded amount; refund.succeeded.
 * - failed: the amount reserved on the payment is released; refund.failed.
 * - pending: the processor took it and decides later (its refund id is kept); its webhook finishes it.
 * A refund counts on the request once it has succeeded, not while the processor is deciding, so one
 * the processor fails later never has to be taken back from the request.
 */
export async function recordRefundOutcome(
  ctx: DbContext,
  input: { payment: PaymentRow; refundId: number; outcome: RefundOutcome },
): Promise<RefundRow | undefined> {
  const { payment, outcome } = input;
  const current = await lockRefund(ctx.db, input.refundId);
  if (!current || current.status !== 'pending') return undefined;
  // Already pending at the processor: hearing so again is not news.
  if (outcome.status === 'pending' && current.processor_refund_id !== null) return undefined;
  const done = ctx.clock.now();
  const updated = await finishRefund(
    ctx.db,
    current.id,
    outcome.status,
    outcome.refundId ?? current.processor_refund_id,
    done,
  );
  if (!updated || outcome.status === 'pending') return updated;
  if (outcome.status === 'failed') {
    await releaseRefund(ctx.db, payment.id, current.amount, done);
  } else {
    await recordRefundOnRequest(ctx, {
      merchantId: current.merchant_id,
      paymentRequestId: payment.payment_request_id,
      amount: current.amount,
    });
  }
  await recordEvent(ctx.db, outcome.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed', {
    merchantId: current.merchant_id,
    livemode: current.livemode,
    objectId: updated.id,
    payload: {
      refundId: updated.id,
      paymentId: payment.id,
      amount: current.amount,
      currency: payment.currency,
      status: outcome.status,
    },
    createdAt: done,
  });
  return updated;
}
