import type { DbContext } from '../../storage/db-context.js';
import { amountRange } from '../../lib/amount-range.js';
import { csvStream, moneyCells } from '../../lib/csv.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { findCardsOf, listPayments, type PaymentFilter, type Scope } from './repository.js';
import { AppError } from '../../errors.js';
import { CARD_LAST4_WINDOW_DAYS, type PaymentExportQuery, type PaymentListQuery, type PaymentView } from './schemas.js';
import { paymentView } from './view.js';

function filterOf(query: PaymentExportQuery, now: Date): PaymentFilter {
  const filter: PaymentFilter = {
    paymentRequestId: query.paymentRequestId,
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    payerEmail: query.payerEmail,
    cardLast4: query.cardLast4,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
    ...amountRange(query),
  };
  checkLast4Bound(filter, now);
  return filter;
}

const DAY_MS = 86_400_000;

/**
 * The last 4 digits have no index (each one would cost every payment write two more index entries): alone
 * they would read every payment of the merchant. They narrow an indexed filter, or a bounded date range.
 */
function checkLast4Bound(filter: PaymentFilter, now: Date): void {
  if (filter.cardLast4 === undefined) return;
  const narrowed = [filter.payerEmail, filter.reference, filter.customerId, filter.paymentRequestId].some(
    (value) => value !== undefined,
  );
  if (narrowed) return;
  const to = filter.createdTo ?? now;
  if (
    filter.createdFrom !== undefined &&
    to.getTime() - filter.createdFrom.getTime() <= CARD_LAST4_WINDOW_DAYS * DAY_MS
  )
    return;
  throw new AppError(
    'VALIDATION_ERROR',
    `cardLast4 needs payerEmail, reference, customerId or paymentRequestId, or createdFrom at most ` +
      `${CARD_LAST4_WINDOW_DAYS} days before createdTo (default: now)`,
    { details: { field: 'createdFrom' } },
  );
}

/** A page of the merchant's payments (every attempt), newest first (src/lib/pagination.ts). */
export async function listPaymentPage(
  ctx: Pick<DbContext, 'db' | 'clock'>,
  input: { scope: Scope; query: PaymentListQuery },
) {
  const limit = input.query.limit ?? DEFAULT_PAGE_SIZE;
  const filter = { ...filterOf(input.query, ctx.clock.now()), beforeId: cursorPosition(input.query.cursor) };
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
  'refundStatus',
  'payerName',
  'payerEmail',
  'cardBrand',
  'cardLast4',
  'upiId',
  'walletType',
];

/** The same filtered list as CSV, newest first, every row (streamed in keyset batches). */
export function exportPayments(
  ctx: Pick<DbContext, 'db' | 'clock'>,
  input: { scope: Scope; query: PaymentExportQuery },
) {
  // Validated before the first byte: a bad filter is a 400, not a broken download.
  const filter = filterOf(input.query, ctx.clock.now());
  return csvStream(
    CSV_HEADER,
    async (beforeId, limit) => {
      const rows = await listPayments(ctx.db, input.scope, { ...filter, beforeId }, limit);
      const cards = await findCardsOf(ctx.db, rows);
      return rows.map((row) => ({ ...row, card: row.card_id === null ? undefined : cards.get(row.card_id) }));
    },
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
      ...searchCells(paymentView(row, row.card)),
    ],
  );
}

/** What the panel's search and a support desk look for: refund state, payer, card, UPI id or wallet. */
const searchCells = (view: PaymentView) => [
  view.refundStatus,
  view.payer.name,
  view.payer.email,
  view.card?.brand,
  view.card?.last4,
  view.upiId,
  view.walletType,
];
