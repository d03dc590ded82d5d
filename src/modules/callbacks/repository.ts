import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { MerchantScope } from '../../lib/scope.js';
import type { CallbackEventSource, CallbackEventsTable } from './tables.js';
import { PROVIDER_SOURCES } from './schemas.js';

export type CallbackEventRow = Selectable<CallbackEventsTable>;

/** Inserts the event; undefined when a provider event with the same (source, eventId) exists. */
export async function insertCallbackEvent(
  db: Db,
  values: Insertable<CallbackEventsTable>,
): Promise<number | undefined> {
  const row = await db
    .insertInto('callback_events')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Locks the row so concurrent workers process an event one at a time. */
export async function lockCallbackEvent(db: Db, id: number): Promise<CallbackEventRow | undefined> {
  return db.selectFrom('callback_events').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function markCallbackProcessed(db: Db, id: number, processedAt: Date, note: string | null): Promise<void> {
  await db
    .updateTable('callback_events')
    .set({ processed_at: processedAt, processing_error: note })
    .where('id', '=', id)
    .where('processed_at', 'is', null)
    .execute();
}

export async function recordProcessingError(db: Db, id: number, message: string): Promise<void> {
  await db
    .updateTable('callback_events')
    .set({ processing_error: message.slice(0, 1000) })
    .where('id', '=', id)
    .where('processed_at', 'is', null)
    .execute();
}

/** The provider callbacks naming these processor transactions, oldest first. */
export async function findCallbacksOfTransactions(db: Db, transactionIds: string[]): Promise<CallbackEventRow[]> {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('callback_events')
    .selectAll()
    .where('transaction_id', 'in', transactionIds)
    .where('source', 'in', PROVIDER_SOURCES)
    .orderBy('id')
    .execute();
}

export interface ReceivedFilter {
  source?: CallbackEventSource;
  beforeId?: number;
  limit: number;
}

/**
 * A merchant's received callbacks, newest first: the provider callbacks about its payments in this
 * mode (matched by transaction id; payments are read here, never written) and the test calls sent with its key.
 */
export async function findReceivedCallbacks(db: Db, scope: MerchantScope, filter: ReceivedFilter) {
  let query = db
    .selectFrom('callback_events')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('merchant_id', '=', scope.merchantId), eb('livemode', '=', scope.livemode)]),
        eb(
          'transaction_id',
          'in',
          eb
            .selectFrom('payments')
            .select('processor_payment_id')
            .where('merchant_id', '=', scope.merchantId)
            .where('livemode', '=', scope.livemode)
            .where('processor_payment_id', 'is not', null),
        ),
      ]),
    );
  if (filter.source !== undefined) query = query.where('source', '=', filter.source);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}
