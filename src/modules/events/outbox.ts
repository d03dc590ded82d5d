import { sql, type Expression, type QueryCreator } from 'kysely';
import { fromClause, isExpression, type FromCte } from '../../storage/statements.js';
import type { Database } from '../../storage/schema.js';
import type { Db } from '../../storage/db.js';
import type { EventCatalog, EventType } from './catalog.js';

/** The columns of one outbox row, as values or as SQL expressions over a CTE. */
export interface EventRow<T extends EventType> {
  merchantId: number | Expression<number>;
  livemode: boolean | Expression<boolean>;
  objectId: number | Expression<number>;
  payload: EventCatalog[T] | Expression<unknown>;
  createdAt: Date | Expression<Date>;
}

/**
 * The one outbox write (transactional outbox: written in the statement or transaction of the state
 * change it announces, so an event exists exactly when the change committed; delivery is separate), as
 * two CTEs added to `qc`: `event` inserts the event and `event_queued` its row in `outbox_queue`, which
 * the relay deletes when it hands the event to delivery. With `from`, one event per row of that CTE;
 * with no `type`, none (the event depends on the outcome). Whether there is one is in the text, not a
 * parameter, so a prepared statement's generic plan stays tight.
 */
export function withEvent<T extends EventType, DB extends Database>(
  qc: QueryCreator<DB>,
  type: T | undefined,
  row: EventRow<T>,
  from?: FromCte,
): QueryCreator<DB> {
  const value = (v: unknown) => (isExpression(v) ? v : sql.val(v));
  const select = sql`select ${value(row.merchantId)}::bigint, ${value(row.livemode)}::boolean, ${sql.val(type ?? '')}::text,
    ${value(row.objectId)}::bigint, ${isExpression(row.payload) ? row.payload : JSON.stringify(row.payload)}::jsonb,
    ${value(row.createdAt)}::timestamptz${fromClause(from)}
    ${from?.where === undefined ? sql`where` : sql`and`} ${sql.raw(String(type !== undefined))}`;
  // A CTE's creator knows more tables than Database; the statements need only their own.
  return (qc as unknown as QueryCreator<Database>)
    .with('event', (qb) =>
      qb
        .insertInto('outbox_events')
        .columns(['merchant_id', 'livemode', 'type', 'object_id', 'payload', 'created_at'])
        .expression(select as never)
        .returning(['id', 'merchant_id']),
    )
    .with('event_queued', (qb) =>
      qb
        .insertInto('outbox_queue')
        .columns(['event_id', 'merchant_id'])
        .expression((eb) => eb.selectFrom('event').select(['id', 'merchant_id'])),
    ) as unknown as QueryCreator<DB>;
}

/** One event on its own (the caller owns the transaction). */
export async function recordEvent<T extends EventType>(db: Db, type: T, row: EventRow<T>): Promise<void> {
  await withEvent(db, type, row)
    .selectNoFrom(sql<number>`1`.as('one'))
    .execute();
}
