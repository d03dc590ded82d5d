import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { CallbackEventsTable } from '../../storage/schema.js';

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
