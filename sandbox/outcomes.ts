/**
 * The sandbox's deterministic behaviour: every table from decisions.md "Sandbox behaviour"
 * lives here and nowhere else. Routes look outcomes up; they never decide them.
 */

/** What finally happens to an authorization. */
export type FinalOutcome = { result: 'approved'; eci?: string } | { result: 'declined'; code: string; reason: string };

/** How the processor reaches that final outcome. */
export type AuthorizationPlan =
  | { kind: 'final'; outcome: FinalOutcome }
  /** Retryable processor failure: HTTP 503, nothing recorded. */
  | { kind: 'processor_error' }
  /** Answered `pending` now; the outcome follows by callback about a second later. */
  | { kind: 'pending'; outcome: FinalOutcome }
  /** 3-D Secure challenge on the ACS page; an approved challenge leads to `outcome`. */
  | { kind: 'challenge'; outcome: FinalOutcome };

const APPROVED: FinalOutcome = { result: 'approved' };
const declined = (code: string, reason: string): FinalOutcome => ({ result: 'declined', code, reason });
const final = (outcome: FinalOutcome): AuthorizationPlan => ({ kind: 'final', outcome });

/** Cards with a special outcome; any other Luhn-valid number (4242…, 5555…, 3782…, 4111…) is approved. */
export const CARD_TABLE: Readonly<Record<string, AuthorizationPlan>> = {
  '4000000000000002': final(declined('05', 'do not honor')),
  '4000000000009995': final(declined('51', 'insufficient funds')),
  '4000000000000069': final(declined('54', 'expired card')),
  '4000000000000572': final(declined('57', 'transaction not permitted')),
  '4000000000000614': final(declined('61', 'exceeds withdrawal limit')),
  '4000000000000119': { kind: 'processor_error' },
  '4000000000000994': { kind: 'pending', outcome: APPROVED },
  '4000002760003184': { kind: 'challenge', outcome: APPROVED },
  '4000008400001629': { kind: 'challenge', outcome: declined('05', 'do not honor') },
  '4000000000003220': final({ result: 'approved', eci: '05' }),
};

/** `force3ds` turns any approving card (frictionless included) into a challenge. */
export function cardPlan(number: string, force3ds: boolean): AuthorizationPlan {
  const plan = CARD_TABLE[number] ?? final(APPROVED);
  if (force3ds && plan.kind === 'final' && plan.outcome.result === 'approved')
    return { kind: 'challenge', outcome: APPROVED };
  return plan;
}

/** Wallet tokens: `wallet_decline` → declined with issuer response 05, `wallet_3ds` → challenge, anything else approved. */
export const WALLET_TABLE: Readonly<Record<string, AuthorizationPlan>> = {
  wallet_decline: final(declined('05', 'do not honor')),
  wallet_3ds: { kind: 'challenge', outcome: APPROVED },
};

export function walletPlan(token: string): AuthorizationPlan {
  return WALLET_TABLE[token] ?? final(APPROVED);
}

/** The outcome of an approved or denied 3-D Secure challenge. */
export const CHALLENGE_DENIED: FinalOutcome = declined('05', '3-D Secure authentication failed');
export const ECI_AUTHENTICATED = '05';
export const ECI_NOT_AUTHENTICATED = '07';

export type UpiOutcome =
  | { kind: 'success' }
  | { kind: 'failed'; upiResponse: string; reason: string }
  /** The payer never answers; the collect expires after the TTL. */
  | { kind: 'no_answer' };

/** UPI ids with a special outcome; any other well-formed id is approved. */
export const UPI_TABLE: Readonly<Record<string, UpiOutcome>> = {
  'pin@upi': { kind: 'failed', upiResponse: 'U30', reason: 'invalid PIN' },
  'risk@upi': { kind: 'failed', upiResponse: 'U16', reason: 'risk threshold exceeded' },
  'device@upi': { kind: 'failed', upiResponse: 'U66', reason: 'device not registered' },
  'decline@upi': { kind: 'failed', upiResponse: 'U69', reason: 'collect request declined' },
  'timeout@upi': { kind: 'no_answer' },
};

/** `username@bankcode` (UPI virtual payment address). */
export const UPI_ID_PATTERN = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;

export function upiOutcome(upiId: string): UpiOutcome {
  return UPI_TABLE[upiId.toLowerCase()] ?? { kind: 'success' };
}

/** Delay before a `pending` authorization is settled by callback. */
export const PENDING_SETTLE_MS = 1000;
