import type { CardRow, PaymentRow } from './repository.js';
import type { CardPaymentResult } from './types.js';

/** The answer to a card submission: the new card token is shown only once the payment is authorized or succeeded. */
export function cardPaymentResult(payment: PaymentRow, card: CardRow, token: string | null): CardPaymentResult {
  const accepted = payment.status === 'authorized' || payment.status === 'succeeded';
  return { payment, card, cardToken: accepted ? token : null };
}
