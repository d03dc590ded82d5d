import { Type } from '@sinclair/typebox';
import { AppError, ERRORS } from '../errors.js';
import type { PaymentStatus } from './payments/tables.js';

/** What decides a payment's error (a payment row, or the part of it a module reads). */
export interface AttemptOutcome {
  id: number;
  status: PaymentStatus;
  method: string;
  failure_code: string | null;
  decline_code: string | null;
  decline_reason: string | null;
  failure_details: Record<string, unknown> | null;
}

/**
 * Why a failed payment failed, as one error of the vocabulary (decisions.md "Error bodies"): the
 * answer to a submission that failed at once, and the `failure` member of the payment (and of a
 * payment request's last attempt) when read later: a 3-D Secure or UPI outcome arrives after the
 * submission was answered. Shared by the payments and payment-requests modules, like the state machine.
 */
export function paymentError(payment: AttemptOutcome): AppError | undefined {
  if (payment.status !== 'failed') return undefined;
  const details = payment.failure_details ?? {};
  const extensions = { paymentId: payment.id };
  switch (payment.failure_code) {
    case 'card_declined':
      if (payment.method === 'wallet')
        return new AppError('PAYMENT_DECLINED', `The wallet payment was declined: ${payment.decline_reason}`, {
          details: { declineReason: payment.decline_reason, issuerResponse: payment.decline_code },
          extensions,
        });
      return new AppError('CARD_DECLINED', `The card was declined: ${payment.decline_reason}`, {
        details: { declineCode: payment.decline_code, declineReason: payment.decline_reason },
        extensions,
      });
    case 'threeds_failed':
      return new AppError('THREEDS_FAILED', `3-D Secure authentication failed: ${payment.decline_reason}`, {
        details,
        extensions,
      });
    case 'upi_failed':
      return new AppError('UPI_TRANSACTION_FAILED', `The UPI payment failed: ${payment.decline_reason}`, {
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

/**
 * A failed payment's reason in a report, for failures no issuer's decline code names (a card decline is
 * told by its decline code and the issuer's reason): the failure code, in words.
 */
const FAILURE_REASONS: Record<string, string> = {
  threeds_failed: '3-D Secure failed',
  upi_failed: 'UPI payment failed',
  processor_failed: 'Failed at the processor',
  processor_error: 'Processor error',
  processor_unreachable: 'Processor unreachable',
};

export const failureReason = (failureCode: string | null) =>
  (failureCode !== null && FAILURE_REASONS[failureCode]) || 'Failed';

/** The failure as the payment view shows it. */
export function failureView(payment: AttemptOutcome) {
  const error = paymentError(payment);
  if (!error) return null;
  return { error: error.error, code: ERRORS[error.error].code, message: error.message, details: error.details ?? {} };
}

export const PaymentFailure = Type.Union(
  [
    Type.Object({
      error: Type.String(),
      code: Type.String(),
      message: Type.String(),
      details: Type.Record(Type.String(), Type.Unknown()),
    }),
    Type.Null(),
  ],
  { description: 'Why a failed payment failed: the error its submission answered, or would have' },
);
