/**
 * Types for {CHECKOUT_URL}/embed.js, the global `SvcCheckout`. Copy this file into a TypeScript
 * project (or reference it) to type `window.SvcCheckout`.
 */
export interface CheckoutEvent {
  source: 'svc-checkout';
  /**
   * What happened. `payment.failed`: a payment attempt failed (the payer may try again in the frame).
   * `load.failed`: the checkout did not load in your page (see `reason`); embed.js also logs why with
   * `console.error`.
   */
  type: 'ready' | 'resize' | 'payment.succeeded' | 'payment.failed' | 'expired' | 'load.failed';
  paymentRequestId?: number;
  /** On payment.succeeded and payment.failed. */
  paymentId?: number;
  /** The payment's status (succeeded, authorized, pending, failed), or the request's on ready. */
  status?: string;
  /** On resize: the checkout's content height in CSS pixels. */
  height?: number;
  /**
   * On load.failed. `not_loaded`: the checkout sent nothing within `timeoutMs`. Most often the browser
   * refused to frame it because your page's origin is not in your `checkoutOrigins` setting (PATCH
   * /settings, per mode); else the checkout could not be reached. If it loads later after all, the
   * usual events (onReady, …) still follow.
   */
  reason?: 'not_loaded';
  /** On load.failed: how long embed.js waited, in milliseconds. */
  timeoutMs?: number;
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
  /** How long the checkout may take to load before onFailure hears `load.failed`; default 10000 ms. */
  loadTimeoutMs?: number;
  onReady?: (event: CheckoutEvent) => void;
  onSuccess?: (event: CheckoutEvent) => void;
  /** A payment attempt failed (`payment.failed`) or the checkout did not load (`load.failed`). */
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
