/**
 * The checkout's only calls to the gateway, with the checkout session token (X-Checkout-Token) and
 * never an API key. The gateway serves this page on its own origin, so the API is the page's origin.
 */
import type { Payment, PaymentRequest } from '../../shared/api-types.js';

/**
 * The request as the payer sees it, with what the gateway adds in headers for the checkout: the
 * merchant's name (X-Merchant-Name, percent-encoded), whether it offers wallets (X-Wallet-Enabled) and
 * the latest attempt (X-Last-Payment-Id / -Status), which is how the page learns a 3-D Secure outcome.
 */
export type CheckoutView = PaymentRequest & {
  merchantName: string;
  walletEnabled: boolean;
  lastPayment: { paymentId: number; status: string } | null;
};

/** What the checkout reads of a payment attempt (a declined attempt's 402 answer names only some of it). */
export type CheckoutPayment = Pick<
  Payment,
  | 'paymentId'
  | 'status'
  | 'redirectUrl'
  | 'declineCode'
  | 'declineReason'
  | 'upiIntentUrl'
  | 'upiExpiresAt'
  | 'createDate'
>;

/** An answer that is not 2xx: its status and the message the gateway gave (never shown raw for 5xx). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }

  /** A declined or failed attempt (402) names the stored payment and, for a decline, its reason. */
  get failedPayment(): CheckoutPayment | null {
    if (this.status !== 402 || typeof this.body.paymentId !== 'number') return null;
    const details = (this.body.details ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return {
      paymentId: this.body.paymentId,
      status: 'failed',
      redirectUrl: null,
      upiIntentUrl: null,
      upiExpiresAt: null,
      createDate: '',
      // A wallet decline names the issuer's answer issuerResponse.
      declineCode: text(details.declineCode) ?? text(details.issuerResponse),
      declineReason: text(details.declineReason) ?? text(details.reason),
    };
  }
}

export function api(token: string) {
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
    const res = await fetch(path, {
      method,
      headers: { 'X-Checkout-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw new ApiError(res.status, messageOf(json), json);
    return { body: json as T, headers: res.headers };
  }
  return {
    async paymentRequest(id: number): Promise<CheckoutView> {
      const { body, headers } = await call<PaymentRequest>('GET', `/payment-requests/${id}`);
      const lastId = Number(headers.get('X-Last-Payment-Id'));
      return {
        ...body,
        merchantName: decodeURIComponent(headers.get('X-Merchant-Name') ?? ''),
        walletEnabled: headers.get('X-Wallet-Enabled') === 'true',
        lastPayment: lastId ? { paymentId: lastId, status: headers.get('X-Last-Payment-Status') ?? '' } : null,
      };
    },
    payByCard: async (id: number, body: Record<string, unknown>) =>
      (await call<CheckoutPayment>('POST', `/payments/h2h/${id}`, body)).body,
    payByUpi: async (id: number, body: Record<string, unknown>) =>
      (await call<CheckoutPayment>('POST', `/payments/h2h/${id}`, body)).body,
    payByWallet: async (id: number, body: Record<string, unknown>) =>
      (await call<CheckoutPayment>('POST', `/payments/wallet/${id}`, body)).body,
  };
}

/** Both error bodies: RFC 9457 problems (`detail`) and the error guide (`message`). */
function messageOf(json: Record<string, unknown>): string {
  const text = json.detail ?? json.message ?? json.title;
  return typeof text === 'string' ? text : 'The payment could not be sent.';
}
