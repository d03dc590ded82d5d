/**
 * What the page must remember across the 3-D Secure round trip (the bank's page replaces this one,
 * then sends the payer back to `/main?requestId=…&paymentId=…` without a token): the token and who
 * embeds the page. Per tab (sessionStorage, where the browser allows it; a framed page may be refused
 * and then gets the token from embed.js again), never anything about the card.
 */
export interface CheckoutSession {
  token: string;
  parentOrigin: string | null;
  locale: string;
  successUrl: string | null;
  failureUrl: string | null;
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
    // Storage refused (private mode, blocked third-party storage): embed.js hands the token over again.
  }
}

export function clearSession(requestId: number): void {
  try {
    sessionStorage.removeItem(key(requestId));
  } catch {
    // See saveSession.
  }
}
