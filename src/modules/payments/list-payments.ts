import type { DbContext } from '../../context.js';
import { amountRange } from '../../lib/amount-range.js';
import { csvStream, moneyCells } from '../../lib/csv.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { findCardsOf, listPayments, type PaymentFilter, type Scope } from './repository.js';
import type { PaymentExportQuery, PaymentListQuery } from './schemas.js';
import { paymentView } from './view.js';

function filterOf(query: PaymentExportQuery): PaymentFilter {
  return {
    paymentRequestId: query.paymentRequestId,
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
    ...amountRange(query),
  };
}

/** A page of the merchant's payments (every attempt), newest first (src/lib/pagination.ts). */
export async function listPaymentPage(ctx: Pick<DbContext, 'db'>, input: { scope: Scope; query: PaymentListQuery }) {
  const limit = input.query.limit ?? DEFAULT_PAGE_SIZE;
  const filter = { ...filterOf(input.query), beforeId: cursorPosition(input.query.cursor) };
  const page = toPage(await listPayments(ctx.db, input.scope, filter, limit + 1), limit);
  const cards = await findCardsOf(ctx.db, page.data);
  return {
    ...page,
    data: page.data.map((p) => paymentView(p, p.card_id === null ? undefined : cards.get(p.card_id))),
  };
}

const CSV_HEADER = [
  'paymentId',
  'createDate',
  'status',
  'paymentRequestId',
  'method',
  'processor',
  'transactionId',
  'currency',
  'amountMinor',
  'amount',
  'amountCapturedMinor',
  'amountCaptured',
  'amountRefundedMinor',
  'amountRefunded',
  'declineCode',
  'declineReason',
];

/** The same filtered list as CSV, newest first, every row (streamed in keyset batches). */
export function exportPayments(ctx: Pick<DbContext, 'db'>, input: { scope: Scope; query: PaymentExportQuery }) {
  // Validated before the first byte: a bad filter is a 400, not a broken download.
  const filter = filterOf(input.query);
  return csvStream(
    CSV_HEADER,
    (beforeId, limit) => listPayments(ctx.db, input.scope, { ...filter, beforeId }, limit),
    (row) => [
      row.id,
      row.created_at.toISOString(),
      row.status,
      row.payment_request_id,
      row.method,
      row.processor,
      row.processor_payment_id,
      row.currency,
      ...moneyCells(row.amount, row.currency),
      ...moneyCells(row.amount_captured, row.currency),
      ...moneyCells(row.amount_refunded, row.currency),
      row.decline_code,
      row.decline_reason,
    ],
  );
}
