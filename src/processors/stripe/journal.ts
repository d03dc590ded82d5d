import type Stripe from 'stripe';

/**
 * What the connector sent for one authorization, so that `queryStatus` can answer by the gateway's
 * reference: the API document the simulator keeps has no lookup by metadata (Stripe's search is
 * newer, and eventually consistent), so the PaymentIntent id is kept once the create is answered,
 * and the create itself so that it can be replayed with its idempotency key when it was not.
 * Card data is never kept: the create names the PaymentMethod by id.
 */
export interface AuthorizeAttempt {
  /** The create as sent (absent until the PaymentMethod exists: before that nothing can charge). */
  intentParams?: Stripe.PaymentIntentCreateParams;
  /** Known once Stripe answered the create. */
  paymentIntentId?: string;
}

/**
 * Where attempts are kept. The default lives in memory, so it answers for authorizations made by
 * this process; a durable one (the payment's row) lets any instance reconcile after a restart.
 */
export interface AttemptJournal {
  read(reference: string): Promise<AuthorizeAttempt | undefined>;
  /**
   * Adds what is not known yet; what is already known is kept, as Stripe keeps the first request
   * made under a key (a second call for the same payment must not make the journal forget).
   */
  note(reference: string, facts: AuthorizeAttempt): Promise<void>;
}

/** Keeps the newest `limit` attempts (reconciliation comes within minutes of the attempt). */
export function memoryJournal(limit = 10_000): AttemptJournal {
  const attempts = new Map<string, AuthorizeAttempt>();
  return {
    read: async (reference) => attempts.get(reference),
    note: async (reference, facts) => {
      const known = attempts.get(reference);
      attempts.delete(reference);
      attempts.set(reference, { ...facts, ...known });
      if (attempts.size > limit) attempts.delete(attempts.keys().next().value as string);
    },
  };
}
