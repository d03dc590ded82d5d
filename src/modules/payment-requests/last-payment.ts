import { paidWith } from '../payment-facts.js';
import { failureView, type AttemptOutcome } from '../payment-failures.js';
import type { listPaymentRequestsWithLastPayment } from './repository.js';
import type { LastPayment, ListedLastPayment } from './schemas.js';

/** A card decline is told by its declineCode; any other failure (3-D Secure, UPI, processor) by `failure`. */
export function attemptOutcome(last: AttemptOutcome): LastPayment {
  const told = { paymentId: last.id, status: last.status, declineCode: last.decline_code };
  return last.status === 'failed' && last.failure_code !== 'card_declined'
    ? { ...told, failure: failureView(last) }
    : told;
}

export type ListedRequestRow = Awaited<ReturnType<typeof listPaymentRequestsWithLastPayment>>[number];

/** A listed request's last attempt: its outcome, and how and by whom it was paid; null before the first. */
export function listedLastPayment(row: ListedRequestRow): ListedLastPayment | null {
  const {
    last_payment_id: id,
    last_payment_status: status,
    last_payment_method: method,
    last_payment_payer: payer,
    last_payment_options: options,
  } = row;
  // These columns of a payment are never null: null here is the left join's "no payment yet".
  if (id === null || status === null || method === null || payer === null || options === null) return null;
  const outcome = attemptOutcome({
    id,
    status,
    method,
    decline_code: row.last_payment_decline_code,
    decline_reason: row.last_payment_decline_reason,
    failure_code: row.last_payment_failure_code,
    failure_details: row.last_payment_failure_details,
  });
  const brand = row.last_payment_card_brand;
  const last4 = row.last_payment_card_last4;
  return {
    ...outcome,
    ...paidWith({ method, payer, options }),
    card: brand !== null && last4 !== null ? { brand, last4 } : null,
  };
}
