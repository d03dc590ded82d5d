import { fromMinor } from '../../lib/money.js';
import type { CardRow, PaymentRow } from './rows.js';
import { paidWith } from '../payment-facts.js';
import { failureView } from '../payment-failures.js';
import type { PaymentView } from './schemas.js';

/** The merchant-facing payment. The card appears only as brand, BIN, last 4 and expiry. */
export function paymentView(
  payment: PaymentRow,
  card: CardRow | undefined,
  cardToken: string | null = null,
): PaymentView {
  const money = (minor: number) => fromMinor(minor, payment.currency);
  const waiting = payment.status === 'requires_action';
  return {
    paymentId: payment.id,
    transactionId: payment.processor_payment_id,
    paymentRequestId: payment.payment_request_id,
    status: payment.status,
    challengeRequired: waiting,
    redirectUrl: waiting ? payment.challenge_url : null,
    upiIntentUrl: waiting ? payment.upi_intent_url : null,
    upiExpiresAt: waiting ? upiExpiry(payment) : null,
    amount: money(payment.amount),
    currency: payment.currency,
    amountCaptured: money(payment.amount_captured),
    amountRefunded: money(payment.amount_refunded),
    refundStatus: refundStatusOf(payment),
    processor: payment.processor,
    ...paidWith(payment),
    card: card
      ? {
          brand: card.brand,
          bin: card.bin,
          last4: card.last4,
          expiration: `${String(card.exp_month).padStart(2, '0')}/${String(card.exp_year % 100).padStart(2, '0')}`,
        }
      : null,
    cardToken,
    captureDelayHours: payment.capture_delay_hours,
    captureAt: payment.capture_at ? payment.capture_at.toISOString() : null,
    declineCode: payment.decline_code,
    declineReason: payment.decline_reason,
    failure: failureView(payment),
    threeDs: payment.three_ds ? { result: payment.three_ds.result, eci: payment.three_ds.eci } : null,
    livemode: payment.livemode,
    createDate: payment.created_at.toISOString(),
  };
}

/** What the refunds took of the captured amount: the payment's status stays succeeded through them. */
export function refundStatusOf(
  payment: Pick<PaymentRow, 'amount_captured' | 'amount_refunded'>,
): PaymentView['refundStatus'] {
  if (payment.amount_refunded === 0) return 'none';
  return payment.amount_refunded < payment.amount_captured ? 'partially_refunded' : 'refunded';
}

/** A UPI payment lapses UPI_COLLECT_TTL_SECONDS (as it was when submitted) after it began. */
function upiExpiry(payment: PaymentRow): string | null {
  const ttlSeconds = payment.options.upiTtlSeconds;
  if (payment.method !== 'upi' || typeof ttlSeconds !== 'number') return null;
  return new Date(payment.created_at.getTime() + ttlSeconds * 1000).toISOString();
}
