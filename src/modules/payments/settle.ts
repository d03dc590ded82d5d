import { enqueueJob } from '../../jobs/queue.js';
import type { Db } from '../../storage/db.js';
import type { PaymentStatus } from '../../storage/schema.js';
import { recordEvent, type EventType } from '../outbox.js';
import type { PaymentRow } from './repository.js';
import { requestStatusFor, transitionPayment, transitionPaymentRequest } from '../state-machine.js';
import { paymentView } from './view.js';

/** What a processor told us about an authorization, from any channel (answer, callback, status query). */
export type Settlement =
  | { kind: 'approved'; processorPaymentId: string | null; captured: boolean }
  | { kind: 'declined'; processorPaymentId: string | null; declineCode: string; declineReason: string }
  | { kind: 'failed'; processorPaymentId: string | null; failureCode: string; declineReason?: string }
  | { kind: 'challenge'; processorPaymentId: string; challengeUrl: string }
  | { kind: 'pending'; processorPaymentId: string | null };

const EVENT_FOR: Partial<Record<PaymentStatus, EventType>> = {
  succeeded: 'payment.succeeded',
  authorized: 'payment.authorized',
  failed: 'payment.failed',
  requires_action: 'payment.requires_action',
  canceled: 'payment.canceled',
};

export const CAPTURE_JOB = 'payment.capture';

/**
 * Applies a processor outcome to a payment and its request, in the caller's transaction, through
 * the state machine. Returns the updated payment, or undefined when the outcome is stale (the
 * payment already moved on): callbacks, answers and status queries may race, and the first wins.
 */
export async function settlePayment(trx: Db, now: Date, payment: PaymentRow, settlement: Settlement): Promise<PaymentRow | undefined> {
  const scope = { id: payment.id, merchantId: payment.merchant_id };
  const processorPaymentId = settlement.processorPaymentId ?? payment.processor_payment_id;

  if (settlement.kind === 'pending') {
    if (!processorPaymentId || payment.processor_payment_id === processorPaymentId) return undefined;
    return trx
      .updateTable('payments')
      .set({ processor_payment_id: processorPaymentId, updated_at: now })
      .where('id', '=', payment.id)
      .where('processor_payment_id', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  let updated: PaymentRow | undefined;
  switch (settlement.kind) {
    case 'approved': {
      const delayed = payment.capture_delay_hours > 0 && !settlement.captured;
      updated = delayed
        ? await transitionPayment(trx, scope, 'authorized', now, {
            processor_payment_id: processorPaymentId,
            capture_at: new Date(now.getTime() + payment.capture_delay_hours * 3600_000),
          })
        : await transitionPayment(trx, scope, 'succeeded', now, { processor_payment_id: processorPaymentId, amount_captured: payment.amount });
      if (updated?.status === 'authorized') {
        await enqueueJob(trx, {
          kind: CAPTURE_JOB,
          payload: { paymentId: updated.id, merchantId: updated.merchant_id },
          runAt: updated.capture_at!,
          merchantId: updated.merchant_id,
          dedupeKey: `${CAPTURE_JOB}:${updated.id}`,
        });
      }
      if (updated && payment.card_id !== null) {
        await trx.updateTable('cards').set({ usable: true }).where('id', '=', payment.card_id).where('usable', '=', false).execute();
      }
      break;
    }
    case 'declined':
      updated = await transitionPayment(trx, scope, 'failed', now, {
        processor_payment_id: processorPaymentId,
        decline_code: settlement.declineCode,
        decline_reason: settlement.declineReason,
        failure_code: 'card_declined',
      });
      break;
    case 'failed':
      updated = await transitionPayment(trx, scope, 'failed', now, {
        processor_payment_id: processorPaymentId,
        failure_code: settlement.failureCode,
        decline_reason: settlement.declineReason ?? null,
      });
      break;
    case 'challenge':
      updated = await transitionPayment(trx, scope, 'requires_action', now, {
        processor_payment_id: settlement.processorPaymentId,
        challenge_url: settlement.challengeUrl,
      });
      break;
  }
  if (!updated) return undefined;
  await afterPaymentTransition(trx, now, updated);
  return updated;
}

/** Moves the payment request along with its payment and writes the outbox event, same transaction. */
export async function afterPaymentTransition(trx: Db, now: Date, payment: PaymentRow): Promise<void> {
  const requestStatus = requestStatusFor(payment.status);
  if (requestStatus) {
    await transitionPaymentRequest(
      trx,
      { id: payment.payment_request_id, merchantId: payment.merchant_id },
      requestStatus,
      now,
      requestStatus === 'paid' ? { amount_paid: payment.amount_captured } : {},
    );
  }
  const type = EVENT_FOR[payment.status];
  if (type) {
    await recordEvent(trx, {
      merchantId: payment.merchant_id,
      livemode: payment.livemode,
      type,
      objectId: payment.id,
      object: paymentView(payment, undefined) as unknown as Record<string, unknown>,
      now,
    });
  }
}
