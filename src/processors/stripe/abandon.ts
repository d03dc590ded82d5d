import Stripe from 'stripe';
import { keys } from './keys.js';

/**
 * Cancels a PaymentIntent that was never confirmed, so that a confirmation still on its way cannot
 * charge it: 'abandoned' once cancelled; the PaymentIntent as it now stands when a confirmation won
 * the race (Stripe refuses the cancel); undefined when Stripe could not be asked.
 */
export async function abandon(
  stripe: Stripe,
  intentId: string,
): Promise<'abandoned' | Stripe.PaymentIntent | undefined> {
  try {
    await stripe.paymentIntents.cancel(
      intentId,
      { cancellation_reason: 'abandoned' },
      { idempotencyKey: keys.abandon(intentId) },
    );
    return 'abandoned';
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) return undefined;
    try {
      return await stripe.paymentIntents.retrieve(intentId);
    } catch {
      return undefined;
    }
  }
}

/** A PaymentIntent this connector cancelled before it was ever confirmed: nothing was charged. */
export const wasAbandoned = (intent: Stripe.PaymentIntent) =>
  intent.status === 'canceled' && intent.cancellation_reason === 'abandoned';
