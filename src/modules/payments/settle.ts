import type { DbContext } from '../../storage/db-context.js';
import { movePayment } from './move-payment.js';
import { notePendingTransaction, type PaymentRow } from './repository.js';
import type { Settlement } from './types.js';

/**
 * Applies a processor outcome to a payment and its request through the state machine. Returns the
 * updated payment, or undefined when the outcome is stale (the payment already moved on): callbacks,
 * answers and status queries may race, and the first wins.
 */
export async function settlePayment(
  ctx: DbContext,
  input: { payment: PaymentRow; settlement: Settlement },
): Promise<PaymentRow | undefined> {
  const { payment, settlement } = input;
  const { db } = ctx;
  const now = ctx.clock.now();
  const processorPaymentId = settlement.processorPaymentId ?? payment.processor_payment_id;
  const threeDs = settlement.threeDs ? { three_ds: settlement.threeDs } : {};
  switch (settlement.kind) {
    case 'pending':
      if (!processorPaymentId || payment.processor_payment_id === processorPaymentId) return undefined;
      return notePendingTransaction(db, payment.id, processorPaymentId, now);
    case 'approved':
      return payment.capture_delay_hours > 0 && !settlement.captured
        ? movePayment(db, now, payment, 'authorized', {
            ...threeDs,
            processor_payment_id: processorPaymentId,
            capture_at: new Date(now.getTime() + payment.capture_delay_hours * 3600_000),
          })
        : movePayment(db, now, payment, 'succeeded', {
            ...threeDs,
            processor_payment_id: processorPaymentId,
            amount_captured: payment.amount,
          });
    case 'declined':
      return movePayment(db, now, payment, 'failed', {
        ...threeDs,
        processor_payment_id: processorPaymentId,
        decline_code: settlement.declineCode,
        decline_reason: settlement.declineReason,
        failure_code: 'card_declined',
      });
    case 'failed':
      return movePayment(db, now, payment, 'failed', {
        processor_payment_id: processorPaymentId,
        ...threeDs,
        failure_code: settlement.failureCode,
        decline_reason: settlement.declineReason ?? null,
        failure_details: settlement.details ?? null,
      });
    case 'challenge':
      return movePayment(db, now, payment, 'requires_action', {
        processor_payment_id: settlement.processorPaymentId,
        challenge_url: settlement.challengeUrl,
        upi_intent_url: settlement.upiIntentUrl ?? null,
      });
  }
}
