import type { KeyMode, MerchantStatus } from '../storage/schema.js';

/** Who is calling. Every authenticated request carries exactly one. */
export type Actor = ApiKeyActor | CheckoutActor | UserActor;

export interface ApiKeyActor {
  kind: 'api_key';
  merchantId: number;
  merchantStatus: MerchantStatus;
  mode: KeyMode;
  keyId: number;
  userId: number;
}

/** A browser holding a checkout session token: one payment request, a short allow-list of routes. */
export interface CheckoutActor {
  kind: 'checkout';
  merchantId: number;
  merchantStatus: MerchantStatus;
  /** Shown to the payer by the hosted checkout (X-Merchant-Name). */
  merchantName: string;
  mode: KeyMode;
  paymentRequestId: number;
  sessionId: number;
}

export interface UserActor {
  kind: 'user';
  merchantId: number;
  userId: number;
}

/** Supplied by the checkout-sessions module (composed in app.ts). */
export interface CheckoutTokenVerifier {
  verify(token: string): Promise<CheckoutActor | null>;
}
