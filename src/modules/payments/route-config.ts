/** What the payment routes share in their OpenAPI tags and their route policy (http/route-policy.ts). */
export const TAGS = ['Payments'];

/** Payments answer errors as RFC 9457 problem records (decisions.md "Error bodies"). */
export const PAYMENT_ROUTE = { auth: 'api_key', errorShape: 'problem' } as const;

/** A route that moves money: refused for restricted merchants. */
export const MOVES_MONEY = { ...PAYMENT_ROUTE, paymentSubmission: true } as const;
