import type Stripe from 'stripe';

/**
 * What the connector sent for one authorization, so that `queryStatus` can find the PaymentIntent
 * by the gateway's reference: the SDK's documents up to the pinned simulator's have no lookup by
 * metadata, but replaying the PaymentIntent create with the same idempotency key and the same
 * parameters returns the same PaymentIntent. Card data is never kept: the create names the
 * PaymentMethod by id.
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
  write(reference: string, attempt: AuthorizeAttempt): Promise<void>;
}

/** Keeps the newest `limit` attempts (reconciliation comes within minutes of the attempt). */
export function memoryJournal(limit = 10_000): AttemptJournal {
  const attempts = new Map<string, AuthorizeAttempt>();
  return {
    read: async (reference) => attempts.get(reference),
    write: async (reference, attempt) => {
      attempts.delete(reference);
      attempts.set(reference, attempt);
      if (attempts.size > limit) attempts.delete(attempts.keys().next().value as string);
    },
  };
}
