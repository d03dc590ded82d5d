import type Stripe from 'stripe';
import type { AuthorizeOutcome, StatusResult } from '../types.js';
import { gatewayDecline } from './decline-codes.js';

/** The redirect Stripe asks the payer to follow (3-D Secure), when it asks for one. */
export const challengeUrlOf = (pi: Stripe.PaymentIntent): string | undefined =>
  pi.next_action?.redirect_to_url?.url ?? undefined;

const lastErrorCode = (pi: Stripe.PaymentIntent) => pi.last_payment_error?.decline_code ?? pi.last_payment_error?.code;

/**
 * An answered PaymentIntent as the gateway's authorization outcome. A PaymentIntent back at
 * `requires_payment_method` with a last error was refused; `requires_confirmation` never reaches
 * here (the caller confirms or abandons it).
 */
export function outcomeOfIntent(pi: Stripe.PaymentIntent): AuthorizeOutcome {
  switch (pi.status) {
    case 'succeeded':
      return { kind: 'approved', processorPaymentId: pi.id, captured: true };
    case 'requires_capture':
      return { kind: 'approved', processorPaymentId: pi.id, captured: false };
    case 'processing':
      return { kind: 'pending', processorPaymentId: pi.id };
    case 'requires_action': {
      const challengeUrl = challengeUrlOf(pi);
      // Without a redirect Stripe wants its own client SDK in the payer's browser, which a
      // server-side card flow cannot offer.
      return challengeUrl
        ? { kind: 'challenge', processorPaymentId: pi.id, challengeUrl }
        : { kind: 'error', retryable: false, message: `stripe asked for ${pi.next_action?.type ?? 'an action'}` };
    }
    case 'requires_payment_method':
      return { kind: 'declined', processorPaymentId: pi.id, ...gatewayDecline(lastErrorCode(pi)) };
    default:
      return { kind: 'error', retryable: false, message: `unexpected PaymentIntent status ${pi.status}` };
  }
}

/** A PaymentIntent as the gateway's status of a payment (reconciliation). */
export function statusOfIntent(pi: Stripe.PaymentIntent): StatusResult {
  const status = (s: StatusResult['status']): StatusResult => ({ processorPaymentId: pi.id, status: s });
  switch (pi.status) {
    case 'succeeded':
      return status('captured');
    case 'requires_capture':
      return status('approved');
    case 'requires_action':
      return status('challenge');
    case 'canceled':
      return status('voided');
    case 'requires_payment_method':
      return pi.last_payment_error
        ? { ...status('declined'), ...gatewayDecline(lastErrorCode(pi)) }
        : status('pending');
    default:
      return status('pending');
  }
}
