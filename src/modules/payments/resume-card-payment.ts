import type { KeyMode } from '../api-keys/index.js';
import { cardPaymentResult } from './card-payment-result.js';
import { reconcile } from './jobs.js';
import { findCard, findPayment } from './repository.js';
import type { CardPaymentResult, PaymentContext, RecoveryPoint } from './types.js';

/**
 * A retry of a submission whose first run was interrupted (the process died, or the answer was lost)
 * after it committed its payment: answer with that payment's outcome, the same paymentId, instead of
 * starting another (Brandur's recovery points). A payment still pending is driven to a decision now by
 * asking its processor by our reference, rather than left to the reconciliation sweep. Undefined when
 * a new attempt is the right answer: the payment is gone, or failed without a decline (nothing was
 * charged, the request is open again), exactly as if the client had retried after a 502.
 */
export async function resumeCardPayment(
  ctx: PaymentContext,
  input: { merchantId: number; mode: KeyMode; resume: NonNullable<RecoveryPoint['resume']> },
): Promise<CardPaymentResult | undefined> {
  const scope = { merchantId: input.merchantId, livemode: input.mode === 'live' };
  let payment = await findPayment(ctx.db, scope, input.resume.paymentId);
  if (payment?.status === 'pending') {
    await reconcile(ctx, payment);
    payment = await findPayment(ctx.db, scope, input.resume.paymentId);
  }
  if (!payment || (payment.status === 'failed' && payment.failure_code !== 'card_declined')) return undefined;
  const card = await findCard(ctx.db, payment.card_id);
  return cardPaymentResult(payment, card!, input.resume.cardToken);
}
