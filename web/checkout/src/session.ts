/**
 * What the page must remember across the 3-D Secure round trip (the bank's page replaces this one in
 * the frame, then sends the payer back to `/main?requestId=…` without a token): the token, who embeds
 * the page and the payment being authenticated. Per tab (sessionStorage), never anything about the card.
 */
export interface CheckoutSession {
  token: string;
  parentOrigin: string | null;
  locale: string;
  successUrl: string | null;
  failureUrl: string | null;
  pendingPaymentId?: number;
}

const key = (requestId: number) => `svc-checkout:${requestId}`;

export function loadSession(requestId: number): CheckoutSession | null {
  try {
    const raw = sessionStorage.getItem(key(requestId));
    return raw ? (JSON.parse(raw) as CheckoutSession) : null;
  } catch {
    return null;
  }
}

export function saveSession(requestId: number, session: CheckoutSession): void {
  try {
    sessionStorage.setItem(key(requestId), JSON.stringify(session));
  } catch {
    // Storage refused (private mode, blocked third-party storage): only the 3-D Secure return needs it.
  }
}

export function clearSession(requestId: number): void {
  try {
    sessionStorage.removeItem(key(requestId));
  } catch {
    // See saveSession.
  }
}
