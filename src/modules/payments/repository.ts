import { sql } from 'kysely';
import type { AmountRange } from '../../lib/amount-range.js';
import type { MerchantScope as Scope } from '../../lib/scope.js';
import type { Db } from '../../storage/db.js';
import type { PaymentStatus } from './tables.js';

/**
 * Every query of the payments module: payments, their cards and refunds. The caller owns the
 * transaction. The two statements of every payment, begin and settle, are in files of their own.
 */

export { insertAttempt, type NewAttempt, type VaultedCard } from './begin-statement.js';
export { transition } from './settle-statement.js';
export type { CardRow, PaymentRow } from './rows.js';
import type { CardRow, PaymentRow } from './rows.js';
export type { Scope };

export async function findPayment(db: Db, scope: Scope, paymentId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** By id alone: for the payer's browser coming back from a 3-D Secure challenge (the link is signed). */
export async function findPaymentById(db: Db, paymentId: number) {
  return db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst();
}

export interface PaymentFilter extends AmountRange {
  /** Rows with a smaller id than this (the cursor position). */
  beforeId?: number;
  paymentRequestId?: number;
  status?: PaymentStatus;
  createdFrom?: Date;
  createdTo?: Date;
  /** Of the payment's request: the merchant's reference, exactly. */
  reference?: string;
  /** Of the payment's request. */
  customerId?: number;
  /** The payer's e-mail, any case (the index payments_payer_email). */
  payerEmail?: string;
  /** The last 4 digits of the payment's card. */
  cardLast4?: string;
}

/** Newest first. */
export async function listPayments(db: Db, scope: Scope, filter: PaymentFilter, limit: number) {
  let query = db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.paymentRequestId !== undefined) query = query.where('payment_request_id', '=', filter.paymentRequestId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  if (filter.minAmount !== undefined) query = query.where('amount', '>=', filter.minAmount);
  if (filter.maxAmount !== undefined) query = query.where('amount', '<=', filter.maxAmount);
  if (filter.payerEmail !== undefined)
    // Word for word the expression of payments_payer_email, so the index serves it.
    query = query.where(sql`lower(payer ->> 'email')`, '=', sql`lower(${filter.payerEmail})`);
  if (filter.cardLast4 !== undefined) {
    const cards = db
      .selectFrom('cards')
      .select('id')
      .where('merchant_id', '=', scope.merchantId)
      .where('livemode', '=', scope.livemode)
      .where('last4', '=', filter.cardLast4);
    query = query.where('card_id', 'in', cards);
  }
  if (filter.reference !== undefined || filter.customerId !== undefined) {
    // Request fields: read, never written, here (the payment-requests module owns the table).
    let requests = db
      .selectFrom('payment_requests')
      .select('id')
      .where('merchant_id', '=', scope.merchantId)
      .where('livemode', '=', scope.livemode);
    if (filter.reference !== undefined) requests = requests.where('reference', '=', filter.reference);
    if (filter.customerId !== undefined) requests = requests.where('customer_id', '=', filter.customerId);
    query = query.where('payment_request_id', 'in', requests);
  }
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function findCard(db: Db, cardId: number | null) {
  if (cardId === null) return undefined;
  return db.selectFrom('cards').selectAll().where('id', '=', cardId).executeTakeFirst();
}

/** The cards of several payments in one query, by id. */
export async function findCardsOf(db: Db, payments: PaymentRow[]): Promise<Map<number, CardRow>> {
  const ids = [...new Set(payments.flatMap((p) => (p.card_id === null ? [] : [p.card_id])))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('cards').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((card) => [card.id, card]));
}

/** A stored card a payment of the same mode may use again: by token hash, the merchant's, approved once. */
export async function findUsableCard(db: Db, scope: Scope, tokenHash: string) {
  return db
    .selectFrom('cards')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('usable', '=', true)
    .executeTakeFirst();
}

/** Records a processor's transaction id on a payment that is still waiting for its outcome. */
export async function notePendingTransaction(db: Db, paymentId: number, processorPaymentId: string, now: Date) {
  return db
    .updateTable('payments')
    .set({ processor_payment_id: processorPaymentId, updated_at: now })
    .where('id', '=', paymentId)
    .where('processor_payment_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims payments pending longer than `cutoff` by bumping updated_at, so each is checked by one
 * instance at a time (SKIP LOCKED), again after the next cutoff until final.
 */
export async function claimStalePending(db: Db, now: Date, cutoff: Date, limit: number): Promise<PaymentRow[]> {
  return db
    .updateTable('payments')
    .set({ updated_at: now })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('payments')
        .select('id')
        .where('status', '=', 'pending')
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/**
 * Payments of these methods still waiting for the payer, begun before `cutoff`, oldest first. The
 * first condition is the predicate of the partial index `payments_awaiting_payer` word for word, so
 * PostgreSQL can prove the index applies and reads only the payments that wait.
 */
export async function findUnanswered(
  db: Db,
  input: { methods: PaymentRow['method'][]; statuses: PaymentStatus[]; cutoff: Date; limit: number },
): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where(sql<boolean>`(status = 'requires_action' or (method = 'upi' and status = 'pending'))`)
    .where('status', 'in', input.statuses)
    .where('method', 'in', input.methods)
    .where('created_at', '<', input.cutoff)
    .orderBy('created_at')
    .limit(input.limit)
    .execute();
}

/** The payment a callback names, locked: by our reference (pay_<id>) if it matches, else by the processor's transaction id. */
export async function lockPaymentForCallback(
  db: Db,
  ourId: number | undefined,
  transactionId: string,
): Promise<PaymentRow | undefined> {
  const query = db.selectFrom('payments').selectAll().forUpdate();
  const found = ourId !== undefined ? await query.where('id', '=', ourId).executeTakeFirst() : undefined;
  if (found && (found.processor_payment_id === null || found.processor_payment_id === transactionId)) return found;
  return query.where('processor_payment_id', '=', transactionId).executeTakeFirst();
}

/** Reserves `amount` of the captured, unrefunded total; false when it would exceed what was captured. */
export async function reserveRefund(
  db: Db,
  scope: Scope,
  paymentId: number,
  amount: number,
  now: Date,
): Promise<boolean> {
  const reserved = await db
    .updateTable('payments')
    .set({ amount_refunded: sql`amount_refunded + ${amount}`, updated_at: now })
    .where('id', '=', paymentId)
    .where('merchant_id', '=', scope.merchantId)
    .where(sql<boolean>`amount_refunded + ${amount} <= amount_captured`)
    .returning('id')
    .executeTakeFirst();
  return reserved !== undefined;
}

export async function releaseRefund(db: Db, paymentId: number, amount: number, now: Date): Promise<void> {
  await db
    .updateTable('payments')
    .set({ amount_refunded: sql`amount_refunded - ${amount}`, updated_at: now })
    .where('id', '=', paymentId)
    .execute();
}

export async function insertRefund(
  db: Db,
  scope: Scope,
  values: { paymentId: number; amount: number; currency: string; reason: string | null; now: Date },
) {
  return db
    .insertInto('refunds')
    .values({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
      payment_id: values.paymentId,
      amount: values.amount,
      currency: values.currency,
      status: 'pending',
      reason: values.reason,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A refund without its processor's answer yet: pending, and no processor refund id (a processor that
 * answers "pending" gives one). The predicate of the partial index `refunds_unfinished`.
 */
const unfinished = sql<boolean>`refunds.status = 'pending' and refunds.processor_refund_id is null`;

/** Records the processor's answer on a refund still pending (locked by the caller: lockRefund). */
export async function finishRefund(
  db: Db,
  refundId: number,
  status: 'succeeded' | 'pending' | 'failed',
  processorRefundId: string | null,
  now: Date,
) {
  return db
    .updateTable('refunds')
    .set({ status, processor_refund_id: processorRefundId, updated_at: now })
    .where('id', '=', refundId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export async function findRefund(db: Db, refundId: number) {
  return db.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirst();
}

/** The refund, locked until the transaction ends, so one answer at a time is recorded on it. */
export async function lockRefund(db: Db, refundId: number) {
  return db.selectFrom('refunds').selectAll().where('id', '=', refundId).forUpdate().executeTakeFirst();
}

export type RefundRow = NonNullable<Awaited<ReturnType<typeof findRefund>>>;

export const isUnfinished = (refund: { status: string; processor_refund_id: string | null }) =>
  refund.status === 'pending' && refund.processor_refund_id === null;

/**
 * Unfinished refunds unchanged since `cutoff`, oldest first, claimed for this sweep by bumping their
 * updated_at (so another instance's sweep skips them for a while).
 */
export async function claimUnfinishedRefunds(db: Db, now: Date, cutoff: Date, limit: number) {
  return db
    .updateTable('refunds')
    .set({ updated_at: now })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('refunds')
        .select('id')
        .where(unfinished)
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where(unfinished)
    .returningAll()
    .execute();
}
