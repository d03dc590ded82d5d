import Stripe from 'stripe';
import { AppError } from '../../errors.js';
import { providerEventOf, type StripeProviderEvent } from './events.js';

/** A Stripe webhook whose Stripe-Signature does not verify with the endpoint's secret (or is missing). */
export class StripeWebhookSignatureError extends AppError {
  constructor(message: string) {
    super('INVALID_WEBHOOK_SIGNATURE', message);
    this.name = 'StripeWebhookSignatureError';
  }
}

export type WebhookHeaders = Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery with the SDK's own check (HMAC of the raw body and its timestamp, within
 * the SDK's tolerance) and reads its event. `rawBody` must be the bytes as received: a body parsed
 * and serialised again no longer matches its signature.
 */
export function verifyStripeWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
): StripeProviderEvent[] {
  const signature = headerOf(headers, 'stripe-signature');
  if (!signature) throw new StripeWebhookSignatureError('the Stripe-Signature header is missing');
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new StripeWebhookSignatureError(error.message);
    }
    throw error;
  }
  return [providerEventOf(event)];
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
}
