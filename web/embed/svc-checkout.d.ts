/**
 * Types for {CHECKOUT_URL}/embed.js, the global `SvcCheckout`. Copy this file into a TypeScript
 * project (or reference it) to type `window.SvcCheckout`.
 */
export interface CheckoutEvent {
  source: 'svc-checkout';
  type: 'ready' | 'resize' | 'payment.succeeded' | 'payment.failed' | 'expired';
  paymentRequestId?: number;
  /** On payment.succeeded and payment.failed. */
  paymentId?: number;
  /** The payment's status (succeeded, authorized, pending, failed), or the request's on ready. */
  status?: string;
  /** On resize: the checkout's content height in CSS pixels. */
  height?: number;
}

export interface MountOptions {
  /** The payment request to pay. */
  requestId: number | string;
  /** A checkout session token your server minted for this request (POST /payment-requests/{id}/checkout-session). */
  token: string;
  /** BCP 47 tag for amounts and dates; default: the payer's browser language. */
  locale?: string;
  /** Where to send the payer's browser after a successful payment (after onSuccess ran). */
  successUrl?: string;
  onReady?: (event: CheckoutEvent) => void;
  onSuccess?: (event: CheckoutEvent) => void;
  onFailure?: (event: CheckoutEvent) => void;
  onExpired?: (event: CheckoutEvent) => void;
}

export interface SvcCheckoutApi {
  /** Inserts the checkout into `target` (an element or a CSS selector). */
  mount(target: Element | string, options: MountOptions): { unmount(): void };
}

declare global {
  interface Window {
    SvcCheckout: SvcCheckoutApi;
  }
  const SvcCheckout: SvcCheckoutApi;
}
