import Stripe from 'stripe';
import { ProcessorCallError } from '../types.js';
import { keys } from './keys.js';

const failed = (what: string, error: unknown): ProcessorCallError =>
  new ProcessorCallError(
    `stripe ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    error instanceof Stripe.errors.StripeError ? error.statusCode : undefined,
  );

/**
 * Capture, void and refund of an existing PaymentIntent. Their keys derive from the PaymentIntent
 * (and the amount, or the refund's own reference), so the gateway's retry of a follow-up replays
 * it rather than acting twice.
 */
export async function capture(stripe: Stripe, intentId: string, amount: number): Promise<void> {
  try {
    await stripe.paymentIntents.capture(
      intentId,
      { amount_to_capture: amount },
      { idempotencyKey: keys.capture(intentId, amount) },
    );
  } catch (error) {
    throw failed('capture', error);
  }
}

export async function voidIntent(stripe: Stripe, intentId: string): Promise<void> {
  try {
    await stripe.paymentIntents.cancel(intentId, {}, { idempotencyKey: keys.void(intentId) });
  } catch (error) {
    throw failed('void', error);
  }
}

export async function refund(
  stripe: Stripe,
  intentId: string,
  amount: number,
  reference: string,
): Promise<{ refundId: string; status: 'succeeded' | 'pending' }> {
  let created: Stripe.Refund;
  try {
    created = await stripe.refunds.create(
      { payment_intent: intentId, amount, metadata: { refund_id: reference } },
      { idempotencyKey: keys.refund(reference) },
    );
  } catch (error) {
    throw failed('refund', error);
  }
  if (created.status === 'failed' || created.status === 'canceled') {
    throw new ProcessorCallError(`stripe refund ${created.id} ${created.status}`);
  }
  return { refundId: created.id, status: created.status === 'succeeded' ? 'succeeded' : 'pending' };
}
