import type { DbContext } from '../../storage/db-context.js';
import { amountRange } from '../../lib/amount-range.js';
import { csvStream, moneyCells } from '../../lib/csv.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import {
  listPaymentRequests,
  listPaymentRequestsWithLastPayment,
  type MerchantScope,
  type PaymentRequestFilter,
} from './repository.js';
import type { ExportPaymentRequestsQuery, ListPaymentRequestsQuery } from './schemas.js';
import { effectiveStatus } from './status.js';

function filterOf(query: ExportPaymentRequestsQuery): PaymentRequestFilter {
  return {
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
    ...amountRange(query),
  };
}

/** A page of the merchant's payment requests, newest first (src/lib/pagination.ts), each with its last attempt. */
export async function listPaymentRequestPage(
  ctx: DbContext,
  input: { scope: MerchantScope; query: ListPaymentRequestsQuery },
) {
  const { query } = input;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const filter = { ...filterOf(query), beforeId: cursorPosition(query.cursor) };
  const rows = await listPaymentRequestsWithLastPayment(ctx.db, input.scope, filter, limit + 1, ctx.clock.now());
  return toPage(rows, limit);
}

const CSV_HEADER = [
  'paymentRequestId',
  'createDate',
  'status',
  'reference',
  'currency',
  'amountMinor',
  'amount',
  'amountPaidMinor',
  'amountPaid',
  'amountRefundedMinor',
  'amountRefunded',
  'customerId',
  'description',
  'expiresAt',
];

/** The same filtered list as CSV, newest first, every row (streamed in keyset batches). */
export function exportPaymentRequests(
  ctx: DbContext,
  input: { scope: MerchantScope; query: ExportPaymentRequestsQuery },
) {
  // Validated before the first byte: a bad filter is a 400, not a broken download.
  const filter = filterOf(input.query);
  const now = ctx.clock.now();
  return csvStream(
    CSV_HEADER,
    (beforeId, limit) => listPaymentRequests(ctx.db, input.scope, { ...filter, beforeId }, limit, now),
    (row) => [
      row.id,
      row.created_at.toISOString(),
      effectiveStatus(row, now),
      row.reference,
      row.currency,
      ...moneyCells(row.amount, row.currency),
      ...moneyCells(row.amount_paid, row.currency),
      ...moneyCells(row.amount_refunded, row.currency),
      row.customer_id,
      row.description,
      row.expires_at?.toISOString(),
    ],
  );
}
