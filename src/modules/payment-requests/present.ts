import type { Selectable } from 'kysely';
import { fromMinor } from '../../lib/money.js';
import type { PaymentRequestsTable } from './tables.js';
import { listedLastPayment, type ListedRequestRow } from './last-payment.js';
import type { ListedPaymentRequest, PaymentRequestRecord } from './schemas.js';
import { effectiveStatus } from './status.js';

export type PaymentRequestRow = Selectable<PaymentRequestsTable>;

/**
 * The hosted checkout page of one request. It never carries a token or a key: the merchant's
 * server mints a checkout session token and adds it as `token` when it embeds the page.
 */
export const checkoutPageUrl = (checkoutUrl: string, paymentRequestId: number) =>
  `${checkoutUrl}/main?requestId=${encodeURIComponent(String(paymentRequestId))}`;

export function presentPaymentRequest(row: PaymentRequestRow, now: Date, checkoutUrl: string): PaymentRequestRecord {
  return {
    paymentRequestId: row.id,
    amount: fromMinor(row.amount, row.currency),
    currency: row.currency,
    reference: row.reference,
    status: effectiveStatus(row, now),
    amountPaid: fromMinor(row.amount_paid, row.currency),
    amountRefunded: fromMinor(row.amount_refunded, row.currency),
    customerId: row.customer_id,
    description: row.description,
    metadata: row.metadata,
    createDate: row.created_at.toISOString(),
    expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    livemode: row.livemode,
    notifyUrl: row.notify_url,
    successUrl: row.success_url,
    failureUrl: row.failure_url,
    captureDelayHours: row.capture_delay_hours,
    payer: row.payer,
    checkoutUrl: checkoutPageUrl(checkoutUrl, row.id),
  };
}

/** A request as the list shows it: the record, and its last payment attempt. */
export function presentListedRequest(row: ListedRequestRow, now: Date, checkoutUrl: string): ListedPaymentRequest {
  return { ...presentPaymentRequest(row, now, checkoutUrl), lastPayment: listedLastPayment(row) };
}
