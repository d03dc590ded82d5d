import type { Selectable } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { CardsTable, PaymentsTable } from '../../storage/schema.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type CardRow = Selectable<CardsTable>;

export type { MerchantScope as Scope } from '../payment-requests/repository.js';
import type { MerchantScope as Scope } from '../payment-requests/repository.js';

export async function findPayment(db: Db, scope: Scope, paymentId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** Newest first. */
export async function listPaymentsOfRequest(db: Db, scope: Scope, paymentRequestId: number, limit = 100) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('payment_request_id', '=', paymentRequestId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
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
