import Stripe from 'stripe';

/**
 * What a failed SDK call tells about the processor's side, which decides whether the gateway may
 * try elsewhere:
 * - `card`: the card was refused (402 card_error); the PaymentIntent, if any, is in the error.
 * - `refused`: Stripe did not act — 429 (rate limited before processing), or no connection was
 *   ever made (refused, unresolvable host), so the request never left.
 * - `server`: a 5xx. Stripe documents the result of a 500 as indeterminate, so it is checked
 *   before anything is called safe.
 * - `unknown`: the request went out and no answer came (time-out, connection dropped).
 * - `busy`: the same call with its key is still running at Stripe (the same payment authorized
 *   twice at once): its outcome is not known yet, whatever stage this call was at.
 * - `rejected`: any other answer (4xx): Stripe refused the request as made; retrying it elsewhere
 *   would not help.
 */
export type Failure =
  | { kind: 'card'; error: Stripe.errors.StripeCardError }
  | { kind: 'refused'; message: string }
  | { kind: 'server'; message: string }
  | { kind: 'unknown'; message: string }
  | { kind: 'busy'; message: string }
  | { kind: 'rejected'; message: string; status?: number; code?: string };

/** Connection errors that mean the request was never sent. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function classify(error: unknown): Failure {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return { kind: 'unknown', message: error instanceof Error ? error.message : String(error) };
  }
  if (error instanceof Stripe.errors.StripeCardError) return { kind: 'card', error };
  if (error instanceof Stripe.errors.StripeConnectionError) {
    const code = connectionCode(error.detail);
    return NEVER_SENT.has(code)
      ? { kind: 'refused', message: `${code}: ${error.message}` }
      : { kind: 'unknown', message: error.message };
  }
  const status = error.statusCode;
  if (status === 429 || error instanceof Stripe.errors.StripeRateLimitError) {
    return { kind: 'refused', message: `rate limited: ${error.message}` };
  }
  if (error.code === 'idempotency_key_in_use') return { kind: 'busy', message: error.message };
  if (status !== undefined && status >= 500) return { kind: 'server', message: `${status}: ${error.message}` };
  return { kind: 'rejected', message: error.message, status, code: error.code };
}

function connectionCode(detail: unknown): string {
  if (typeof detail === 'object' && detail !== null && 'code' in detail) return String(detail.code);
  return '';
}

export const failureMessage = (failure: Failure): string =>
  failure.kind === 'card' ? failure.error.message : `stripe ${failure.kind}: ${failure.message}`;
