/**
 * The caller's key mode, merchant status and user role, as credentials check them. The modules own these
 * words (api-keys' KeyMode, merchants' MerchantStatus and UserRole); http sits below the modules, so it
 * spells the same values here, and test/architecture/vocabulary.test.ts keeps the two spellings equal.
 */
export type KeyMode = 'test' | 'live';
export type MerchantStatus = 'active' | 'restricted' | 'suspended';
/** owner: everything, the audit log included; developer: all but the audit log; viewer: reads only. */
export type UserRole = 'owner' | 'developer' | 'viewer';

/** Who is calling. Every authenticated request carries exactly one. */
export type Actor = ApiKeyActor | CheckoutActor | UserActor | PanelActor;

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

/**
 * A signed-in control-panel browser (session cookie) calling the merchant API in the mode it chose
 * for this request (X-Panel-Mode): it stands where an API key of that mode would.
 */
export interface PanelActor {
  kind: 'panel';
  merchantId: number;
  merchantStatus: MerchantStatus;
  mode: KeyMode;
  userId: number;
  role: UserRole;
  sessionId: number;
}

/** A live control-panel session, as the panel-sessions module finds it by its cookie. */
export interface PanelSession {
  sessionId: number;
  userId: number;
  email: string;
  role: UserRole;
  merchantId: number;
  merchantName: string;
  merchantStatus: MerchantStatus;
  expiresAt: Date;
  /** The session's CSRF token: the panel sends it back in X-CSRF-Token on every change. */
  csrfToken: string;
}

/** Supplied by the panel-sessions module (composed in app.ts): null for an unknown, ended or expired session. */
export interface PanelSessionVerifier {
  verify(token: string): Promise<PanelSession | null>;
}

/** Supplied by the checkout-sessions module (composed in app.ts). */
export interface CheckoutTokenVerifier {
  verify(token: string): Promise<CheckoutActor | null>;
}

/** Supplied by the api-keys module (composed in app.ts): undefined for a malformed, unknown or revoked key. */
export interface ApiKeyVerifier {
  verify(key: string): Promise<Omit<ApiKeyActor, 'kind'> | undefined>;
}

/** Supplied by the auth module (composed in app.ts): null for anything but a live control-panel access token. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<Omit<UserActor, 'kind'> | null>;
}
