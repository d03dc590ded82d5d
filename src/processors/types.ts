/**
 * One small interface for every processor (Hyperswitch connectors / Medusa providers are the model).
 * Amounts are integer minor units. Nothing here knows about the gateway's tables.
 */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  /** Passed through to the processor once; never stored or logged. */
  cvv?: string;
  holder: string;
}

export interface AuthorizeInput {
  /** The gateway's payment id: processors deduplicate on it, so a retry never charges twice. */
  reference: string;
  amount: number;
  currency: string;
  capture: boolean;
  /** What pays: a card (card processors) or a wallet's payment token (the wallet processor). */
  card?: CardDetails;
  wallet?: { token: string; walletType: string };
  /** browserInfo: the payer's browser as the merchant sent it, for the ACS's risk decision. */
  threeDS: { force: boolean; returnUrl: string; browserInfo?: Record<string, unknown> };
  /** Sandbox-only test controls passed through to the sandbox network. */
  testHeaders?: Record<string, string>;
}

export type AuthorizeOutcome =
  /** eci: the payer was authenticated without a challenge (frictionless 3-D Secure). */
  | { kind: 'approved'; processorPaymentId: string; captured: boolean; eci?: string }
  | { kind: 'declined'; processorPaymentId: string | null; declineCode: string; declineReason: string }
  | { kind: 'pending'; processorPaymentId: string }
  | { kind: 'challenge'; processorPaymentId: string; challengeUrl: string }
  /** The processor refused before creating anything: safe to try another processor. */
  | { kind: 'error'; retryable: boolean; message: string }
  /** No answer in time: the outcome is unknown, so the payment stays pending and is reconciled. */
  | { kind: 'timeout' };

export type ProcessorPaymentStatus =
  'approved' | 'captured' | 'declined' | 'pending' | 'challenge' | 'voided' | 'refunded' | 'partially_refunded';

export interface StatusResult {
  processorPaymentId: string;
  status: ProcessorPaymentStatus;
  declineCode?: string;
  declineReason?: string;
}

/**
 * An authorized payment as a follow-up names it: the processor's id, the gateway's reference (`pay_<id>`,
 * from which follow-ups derive their idempotency keys) and its currency (some processors' modifications
 * name it). Everything comes from the payment's row, so any instance can follow up on any payment.
 */
export interface PaymentAtProcessor {
  processorPaymentId: string;
  reference: string;
  currency: string;
}

/** What the payer's browser brought back from a 3-D Secure challenge: the return URL's query. */
export type ChallengeReturn = Record<string, string | undefined>;

export interface Processor {
  readonly name: string;
  authorize(input: AuthorizeInput): Promise<AuthorizeOutcome>;
  capture(payment: PaymentAtProcessor, amount: number): Promise<void>;
  void(payment: PaymentAtProcessor): Promise<void>;
  refund(
    payment: PaymentAtProcessor,
    amount: number,
    reference: string,
    /** Sandbox test controls (test mode only). */
    testHeaders?: Record<string, string>,
  ): Promise<{ refundId: string; status: 'succeeded' | 'pending' }>;
  /** By the gateway's reference: how a timed-out call is settled. Null when the processor never saw it. */
  queryStatus(reference: string): Promise<StatusResult | null>;
  parseCallback(body: ProviderCallback): ProviderEvent;
  /**
   * The payer came back from the processor's 3-D Secure challenge: the authorization's outcome, read
   * from the processor (never from the browser). Absent for processors whose ACS reports by callback.
   */
  completeChallenge?(
    payment: PaymentAtProcessor & { capture: boolean },
    returned: ChallengeReturn,
  ): Promise<AuthorizeOutcome>;
}

/** Callback body as received (decisions.md "Callbacks received"). */
export interface ProviderCallback {
  eventId: string;
  transactionId: string;
  status: string;
  amount: number;
  currency: string;
  timestamp: string;
  providerData?: Record<string, unknown>;
}

export interface ProviderEvent {
  processorPaymentId: string;
  reference: string | undefined;
  outcome: 'succeeded' | 'failed' | 'pending' | 'requires_action' | 'refunded' | 'chargeback' | 'unknown';
  declineCode?: string;
  declineReason?: string;
  challengeUrl?: string;
  amount: number;
}

export class ProcessorCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
