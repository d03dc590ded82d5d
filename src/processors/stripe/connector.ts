import type { AuthorizeOutcome, PaymentAtProcessor, Processor } from '../types.js';
import { authorize } from './authorize.js';
import { completeChallenge, type StripeReturnParams } from './challenge.js';
import { createStripeClient } from './client.js';
import { parseStripeCallback } from './events.js';
import { capture, refund, voidIntent } from './follow-ups.js';
import { type AttemptJournal, memoryJournal } from './journal.js';
import { queryStatus } from './query-status.js';

export interface StripeCredentials {
  /** The merchant's secret key (`sk_test_…` / `sk_live_…`) or a restricted key with PaymentIntents, PaymentMethods and Refunds write access. */
  secretKey: string;
}

export interface StripeConnectorOptions {
  credentials: StripeCredentials;
  /** STRIPE_API_BASE: scheme, host and port of Stripe's API or of a proxy/test server before it. Default Stripe's own host. */
  apiBase?: string;
  /** Per call: a call without an answer by then is a time-out (an authorization's: reconciled). */
  timeoutMs: number;
  /** Where authorization attempts are kept for `queryStatus`. Default: in this process's memory. */
  journal?: AttemptJournal;
}

/** What the Stripe connector offers beyond `Processor`. */
export interface StripeConnector extends Processor {
  readonly name: 'stripe';
  /**
   * The payer came back from 3-D Secure: the outcome of the challenged authorization, read from
   * Stripe (approved, declined, or still a challenge when the payer left it unfinished).
   */
  completeChallenge(payment: PaymentAtProcessor, returned: StripeReturnParams): Promise<AuthorizeOutcome>;
}

/** The Stripe connector of one merchant's connected account, on the official SDK. */
export function createStripeConnector(options: StripeConnectorOptions): StripeConnector {
  const stripe = createStripeClient(options.credentials.secretKey, options.apiBase, options.timeoutMs);
  const calls = { stripe, journal: options.journal ?? memoryJournal() };
  return {
    name: 'stripe',
    authorize: (input) => authorize(calls, input),
    capture: (payment, amount) => capture(stripe, payment.processorPaymentId, amount),
    void: (payment) => voidIntent(stripe, payment.processorPaymentId),
    refund: (payment, amount, reference) => refund(stripe, payment.processorPaymentId, amount, reference),
    queryStatus: (reference) => queryStatus(calls, reference),
    parseCallback: parseStripeCallback,
    completeChallenge: (payment, returned) => completeChallenge(stripe, payment.processorPaymentId, returned),
  };
}
