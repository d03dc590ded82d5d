import { AppError, ERRORS } from '../../errors.js';
import type { PaymentRow } from './rows.js';

/**
 * Why a failed payment failed, as one error of the vocabulary (decisions.md "Error bodies"): the
 * answer to a submission that failed at once, and the `failure` member of the payment when read later
 * (a 3-D Secure or UPI outcome arrives after the submission was answered).
 */
export function paymentError(payment: PaymentRow): AppError | undefined {
  if (payment.status !== 'failed') return undefined;
  const details = payment.failure_details ?? {};
  const extensions = { paymentId: payment.id };
  switch (payment.failure_code) {
    case 'card_declined':
      return new AppError('CARD_DECLINED', `The card was declined: ${payment.decline_reason}`, {
        details: { declineCode: payment.decline_code, declineReason: payment.decline_reason },
        extensions,
      });
    case 'threeds_failed':
      return new AppError('THREEDS_FAILED', `3-D Secure authentication failed: ${payment.decline_reason}`, {
        details,
        extensions,
      });
    default:
      return new AppError(
        'PROCESSOR_UNAVAILABLE',
        'The processor could not process the payment; the payer may try again',
        { details: { reason: payment.failure_code }, extensions },
      );
  }
}

/** The failure as the payment view shows it. */
export function failureView(payment: PaymentRow) {
  const error = paymentError(payment);
  if (!error) return null;
  return { error: error.error, code: ERRORS[error.error].code, message: error.message, details: error.details ?? {} };
}
