import type { CardRow, PaymentRow } from './repository.js';
import type { CardPaymentResult } from './types.js';

/** The answer to a card submission: the new card token is shown only once the card was accepted. */
export function cardPaymentResult(payment: PaymentRow, card: CardRow, token: string | null): CardPaymentResult {
  const accepted = payment.status !== 'failed' && payment.status !== 'canceled';
  return { payment, card, cardToken: accepted ? token : null };
}
