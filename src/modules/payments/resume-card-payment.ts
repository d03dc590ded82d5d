import { findCard, findPayment } from './repository.js';
import { reconcile } from './jobs.js';
import { result, type CardPaymentResult, type PaymentDeps } from './submit-card-payment.js';

/**
 * A retry of a submission whose first run was interrupted (the process died, or the answer was lost)
 * after it committed its payment: answer with that payment's outcome, the same paymentId, instead of
 * starting another (Brandur's recovery points). A payment still pending is driven to a decision now by
 * asking its processor by our reference, rather than left to the reconciliation sweep. Undefined when
 * a new attempt is the right answer: the payment is gone, or failed without a decline (nothing was
 * charged, the request is open again), exactly as if the client had retried after a 502.
 */
export async function resumeCardPayment(
  deps: PaymentDeps,
  merchantId: number,
  resume: { paymentId: number; cardToken: string | null },
): Promise<CardPaymentResult | undefined> {
  const scope = { merchantId, livemode: false };
  let payment = await findPayment(deps.db, scope, resume.paymentId);
  if (payment?.status === 'pending') {
    await reconcile(deps, payment);
    payment = await findPayment(deps.db, scope, resume.paymentId);
  }
  if (!payment || (payment.status === 'failed' && payment.failure_code !== 'card_declined')) return undefined;
  const card = await findCard(deps.db, payment.card_id);
  return result(payment, card!, resume.cardToken);
}
