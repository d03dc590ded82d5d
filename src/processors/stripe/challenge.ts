import type Stripe from 'stripe';
import type { AuthorizeOutcome } from '../types.js';
import { classify, failureMessage } from './failures.js';
import { outcomeOfIntent } from './intent-outcome.js';

/**
 * What the payer's return from 3-D Secure brings back (the query Stripe appends to return_url).
 * Only the PaymentIntent id is used: the browser carries `redirect_status`, so the outcome is read
 * from Stripe itself.
 */
export interface StripeReturnParams {
  payment_intent?: string;
  redirect_status?: string;
  [name: string]: string | undefined;
}

export async function completeChallenge(
  stripe: Stripe,
  processorPaymentId: string,
  returnParams: StripeReturnParams = {},
): Promise<AuthorizeOutcome> {
  if (returnParams.payment_intent !== undefined && returnParams.payment_intent !== processorPaymentId) {
    return { kind: 'error', retryable: false, message: 'the return names another PaymentIntent' };
  }
  try {
    return outcomeOfIntent(await stripe.paymentIntents.retrieve(processorPaymentId));
  } catch (error) {
    const failure = classify(error);
    // A read that went unanswered leaves the outcome unknown: reconciliation settles it.
    return failure.kind === 'rejected'
      ? { kind: 'error', retryable: false, message: failureMessage(failure) }
      : { kind: 'timeout' };
  }
}
