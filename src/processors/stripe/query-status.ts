import type Stripe from 'stripe';
import { ProcessorCallError, type StatusResult } from '../types.js';
import { abandon, wasAbandoned } from './abandon.js';
import type { StripeCalls } from './authorize.js';
import { statusOfIntent } from './intent-outcome.js';
import { keys } from './keys.js';

/**
 * The payment of the gateway's reference, as Stripe now has it. When the create was answered the
 * PaymentIntent is read by its id. When it was not, the confirmation was never sent (it needs the
 * id), so nothing can have been charged; the create is replayed with its idempotency key to find
 * the PaymentIntent all the same (the first answer's, or a new unconfirmed one when the first never
 * arrived) and cancel it. A PaymentIntent never confirmed is cancelled before the answer is null,
 * so a confirmation still on its way cannot charge after the gateway was told nothing happened.
 */
export async function queryStatus({ stripe, journal }: StripeCalls, reference: string): Promise<StatusResult | null> {
  const attempt = await journal.read(reference);
  if (!attempt) {
    // Without the parameters the create cannot be replayed: unknown is not "never seen".
    throw new ProcessorCallError(`stripe: no authorization of ${reference} is recorded to look up`);
  }
  // The PaymentMethod was never created: nothing at Stripe can charge this payment.
  if (!attempt.intentParams) return null;
  try {
    let intentId = attempt.paymentIntentId;
    if (!intentId) {
      const intent = await stripe.paymentIntents.create(attempt.intentParams, {
        idempotencyKey: keys.paymentIntent(reference),
      });
      intentId = intent.id;
      await journal.note(reference, { paymentIntentId: intentId });
    }
    const intent = await stripe.paymentIntents.retrieve(intentId);
    return await statusOf(stripe, intent);
  } catch (error) {
    if (error instanceof ProcessorCallError) throw error;
    throw new ProcessorCallError(
      `stripe status query of ${reference} failed: ${error instanceof Error ? error.message : String(error)}`,
      (error as Stripe.errors.StripeError).statusCode,
    );
  }
}

async function statusOf(stripe: Stripe, intent: Stripe.PaymentIntent): Promise<StatusResult | null> {
  if (wasAbandoned(intent)) return null;
  const unconfirmed =
    intent.status === 'requires_confirmation' ||
    (intent.status === 'requires_payment_method' && !intent.last_payment_error);
  if (!unconfirmed) return statusOfIntent(intent);
  const left = await abandon(stripe, intent.id);
  if (left === 'abandoned') return null;
  if (!left) throw new ProcessorCallError(`stripe: could not cancel the unconfirmed ${intent.id}`);
  return wasAbandoned(left) ? null : statusOfIntent(left);
}
