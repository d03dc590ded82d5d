/**
 * Stripe's documented test card numbers (stripe.com/docs/testing) and what each plays. Any other
 * number that passes the Luhn check is approved, as in Stripe's test mode.
 */
export type CardOutcome =
  | { kind: 'approve' }
  | { kind: 'decline'; code: string; declineCode?: string; message: string }
  | { kind: 'three_d_secure' }
  /** Approved; a dispute (charge.dispute.created) follows the capture. */
  | { kind: 'dispute' };

const declined = (code: string, declineCode: string | undefined, message: string): CardOutcome => ({
  kind: 'decline',
  code,
  declineCode,
  message,
});

export const TEST_CARDS: Record<string, CardOutcome> = {
  '4242424242424242': { kind: 'approve' },
  '5555555555554444': { kind: 'approve' },
  '4000000000000002': declined('card_declined', 'generic_decline', 'Your card was declined.'),
  '4000000000009995': declined('card_declined', 'insufficient_funds', 'Your card has insufficient funds.'),
  '4000000000009987': declined('card_declined', 'lost_card', 'Your card was declined.'),
  '4000000000009979': declined('card_declined', 'stolen_card', 'Your card was declined.'),
  '4000000000000069': declined('expired_card', 'expired_card', 'Your card has expired.'),
  '4000000000000127': declined('incorrect_cvc', 'incorrect_cvc', "Your card's security code is incorrect."),
  '4000002760003184': { kind: 'three_d_secure' },
  '4000000000000259': { kind: 'dispute' },
};

export function luhn(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

export function outcomeOf(number: string): CardOutcome {
  return TEST_CARDS[number] ?? { kind: 'approve' };
}

export function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}
