import type { AuthorizeOutcome, PaymentAtProcessor, Processor, ProviderEvent } from '../types.js';

/** One merchant's Adyen connection: what the merchant's Customer Area gives them. */
export interface AdyenCredentials {
  /** The API credential's key (`X-API-Key`); the credential needs the raw card data permission. */
  apiKey: string;
  /** The merchant account payments are booked to. */
  merchantAccount: string;
  /** `test` (checkout-test.adyen.com) or `live`. Default test. */
  environment?: 'test' | 'live';
  /**
   * The live URL prefix of the merchant's company account (Customer Area, Developers → API URLs):
   * live calls go to `https://<prefix>-checkout-live.adyenpayments.com/checkout`. Required for live.
   */
  liveUrlPrefix?: string;
}

export interface AdyenConnectorOptions {
  credentials: AdyenCredentials;
  /**
   * The Checkout API base without its version (`ADYEN_CHECKOUT_API_BASE`): every call goes there
   * instead of the host the SDK picks for the environment, e.g. a forward proxy or a test server.
   * HTTPS only: the SDK speaks nothing else.
   */
  apiBase?: string;
  /** How long a call may go without an answer before its outcome counts as unknown. */
  timeoutMs: number;
  /**
   * Accept any server certificate (the SDK's `certificatePath: 'unencrypted'`). Only for a local
   * test server with a throwaway certificate; never for a real endpoint.
   */
  unverifiedTls?: boolean;
}

/** The money a modification moves: Adyen's modifications name the currency, Processor's do not. */
export interface AdyenModification {
  processorPaymentId: string;
  /** The gateway's reference for this modification: its idempotency key and Adyen's `reference`. */
  reference: string;
  amount: { value: number; currency: string };
}

/** Adyen's acknowledgement of a modification: the outcome follows in a notification. */
export interface AdyenReceipt {
  /** The modification's own pspReference (a notification's `pspReference`). */
  pspReference: string;
  status: 'received';
}

/** What a payer's browser brings back from the 3-D Secure redirect (the query of the return URL). */
export interface AdyenReturnParams {
  redirectResult?: string;
  [name: string]: string | undefined;
}

/**
 * The Adyen connector: a Processor, plus its modifications by their Adyen names (what Processor's
 * capture, void and refund call) and the 3-D Secure return through `/payments/details`.
 */
export interface AdyenProcessor extends Processor {
  /** After the payer's 3-D Secure redirect: `/payments/details` with the `redirectResult`. */
  completeChallenge(
    payment: PaymentAtProcessor & { capture: boolean },
    returned: AdyenReturnParams,
  ): Promise<AuthorizeOutcome>;
  capturePayment(modification: AdyenModification): Promise<AdyenReceipt>;
  cancelPayment(modification: Omit<AdyenModification, 'amount'>): Promise<AdyenReceipt>;
  refundPayment(modification: AdyenModification): Promise<AdyenReceipt>;
  close(): Promise<void>;
}

export type AdyenEventCode = 'AUTHORISATION' | 'CAPTURE' | 'CANCELLATION' | 'REFUND' | 'CHARGEBACK';

/**
 * A verified notification item as the gateway's ProviderEvent, plus what Adyen's notifications
 * tell beyond it: a failed capture, cancel or refund has no ProviderEvent outcome of its own
 * (`failed` would fail the payment), so it is `unknown` with `success: false` here.
 */
export interface AdyenProviderEvent extends ProviderEvent {
  /** Adyen may deliver an item more than once: `eventCode:pspReference:success` names it. */
  eventId: string;
  eventCode: string;
  success: boolean;
  /** The item's own pspReference (a modification's, for CAPTURE/CANCELLATION/REFUND). */
  pspReference: string;
  currency: string;
  reason?: string;
}
