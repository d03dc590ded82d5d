import type { Insertable } from 'kysely';
import type { AmountRange } from '../../lib/amount-range.js';
import type { MerchantScope } from '../../lib/scope.js';
import type { Db } from '../../storage/db.js';
import { requestSourcesFor } from '../state-machine.js';
import type { PaymentRequestStatus, PaymentRequestsTable } from './tables.js';
import { hasEffectiveStatus, openAt } from './status.js';

export type { MerchantScope };

export async function insertPaymentRequest(db: Db, values: Insertable<PaymentRequestsTable>) {
  return db.insertInto('payment_requests').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findPaymentRequest(db: Db, scope: MerchantScope, id: number) {
  return db
    .selectFrom('payment_requests')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

export interface PaymentRequestFilter extends AmountRange {
  /** Rows with a smaller id than this (the cursor position). */
  beforeId?: number;
  status?: PaymentRequestStatus;
  reference?: string;
  customerId?: number;
  createdFrom?: Date;
  createdTo?: Date;
}

/** A page of the filtered requests, newest first. `now` decides which open requests have already expired. */
function filteredRequests(db: Db, scope: MerchantScope, filter: PaymentRequestFilter, limit: number, now: Date) {
  let query = db
    .selectFrom('payment_requests')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.status !== undefined) query = query.where((eb) => hasEffectiveStatus(eb, filter.status!, now));
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  if (filter.minAmount !== undefined) query = query.where('amount', '>=', filter.minAmount);
  if (filter.maxAmount !== undefined) query = query.where('amount', '<=', filter.maxAmount);
  return query.orderBy('id', 'desc').limit(limit);
}

/** Newest first (the CSV export's batches). */
export async function listPaymentRequests(
  db: Db,
  scope: MerchantScope,
  filter: PaymentRequestFilter,
  limit: number,
  now: Date,
) {
  return filteredRequests(db, scope, filter, limit, now).execute();
}

/**
 * The same list, each request with its last payment attempt (its newest payment; null columns before the
 * first). Payments and cards are read here, never written. One statement: the page is cut first, then per
 * request one probe of the index payments_request (merchant, request, id desc) takes its newest payment,
 * and one of the cards' primary key that payment's card: a page costs its size, whatever the tables hold.
 */
export async function listPaymentRequestsWithLastPayment(
  db: Db,
  scope: MerchantScope,
  filter: PaymentRequestFilter,
  limit: number,
  now: Date,
) {
  return db
    .selectFrom(filteredRequests(db, scope, filter, limit, now).as('request'))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('payments')
          .select([
            'payments.id',
            'payments.status',
            'payments.method',
            'payments.card_id',
            'payments.payer',
            'payments.options',
            'payments.decline_code',
            'payments.decline_reason',
            'payments.failure_code',
            'payments.failure_details',
          ])
          .whereRef('payments.merchant_id', '=', 'request.merchant_id')
          .whereRef('payments.payment_request_id', '=', 'request.id')
          .orderBy('payments.id', 'desc')
          .limit(1)
          .as('last'),
      (join) => join.onTrue(),
    )
    .leftJoin('cards', 'cards.id', 'last.card_id')
    .selectAll('request')
    .select([
      'last.id as last_payment_id',
      'last.status as last_payment_status',
      'last.method as last_payment_method',
      'last.payer as last_payment_payer',
      'last.options as last_payment_options',
      'last.decline_code as last_payment_decline_code',
      'last.decline_reason as last_payment_decline_reason',
      'last.failure_code as last_payment_failure_code',
      'last.failure_details as last_payment_failure_details',
      // Brand and last 4 only: the list shows no more of a card.
      'cards.brand as last_payment_card_brand',
      'cards.last4 as last_payment_card_last4',
    ])
    .orderBy('request.id', 'desc')
    .execute();
}

/** open → canceled; no row back means the request is missing or no longer open. */
export async function cancelOpenPaymentRequest(db: Db, scope: MerchantScope, id: number, now: Date) {
  return db
    .updateTable('payment_requests')
    .set({ status: 'canceled', updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('status', 'in', requestSourcesFor('canceled'))
    .where((eb) => openAt(eb, now))
    .returningAll()
    .executeTakeFirst();
}

/** open → expired once expiresAt has passed; no row back means there was nothing to expire. */
export async function expireOpenPaymentRequest(db: Db, merchantId: number, id: number, now: Date) {
  return db
    .updateTable('payment_requests')
    .set({ status: 'expired', updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', 'in', requestSourcesFor('expired'))
    .where('expires_at', '<=', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Customers are read here, never written: the customers module owns the table. What the request's
 * payer defaults take from its customer, or undefined when the scope has no such customer.
 */
export async function findCustomerContact(db: Db, scope: MerchantScope, customerId: number) {
  return db
    .selectFrom('customers')
    .select(['name', 'email', 'phone', 'address', 'country'])
    .where('id', '=', customerId)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** Payments are read here, never written: the payments module owns the table. The latest attempt of a request. */
export async function findLastPayment(db: Db, scope: MerchantScope, paymentRequestId: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'status', 'method', 'decline_code', 'decline_reason', 'failure_code', 'failure_details'])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('payment_request_id', '=', paymentRequestId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Locks the request and returns what it has been paid and refunded so far. */
export async function lockPaidTotals(db: Db, merchantId: number, id: number) {
  return db
    .selectFrom('payment_requests')
    .select(['amount_paid', 'amount_refunded'])
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** paid/partially refunded → (partially) refunded with the new refunded total, through the state machine. */
export async function setRefunded(
  db: Db,
  merchantId: number,
  id: number,
  to: 'refunded' | 'partially_refunded',
  refunded: number,
  now: Date,
) {
  return db
    .updateTable('payment_requests')
    .set({ amount_refunded: refunded, status: to, updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .where('status', 'in', requestSourcesFor(to))
    .returningAll()
    .executeTakeFirst();
}

/** Payments and refunds are read here, never written: the payment attempts of a request and their refunds. */
export async function findAttemptsAndRefunds(db: Db, scope: MerchantScope, paymentRequestId: number) {
  const payments = await db
    .selectFrom('payments')
    .select(['id', 'processor_payment_id'])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('payment_request_id', '=', paymentRequestId)
    .execute();
  const refunds =
    payments.length === 0
      ? []
      : await db
          .selectFrom('refunds')
          .select('id')
          .where('merchant_id', '=', scope.merchantId)
          .where(
            'payment_id',
            'in',
            payments.map((p) => p.id),
          )
          .execute();
  return { payments, refunds };
}
