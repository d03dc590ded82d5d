import { sql, type Kysely } from 'kysely';

/**
 * The events not yet handed to delivery are rows of their own small table, inserted with the event and
 * deleted by the relay that queues them, instead of a `queued_at` column set on the event. Setting the
 * column rewrote every event (its JSON payload included) as a non-HOT update with three new index
 * entries, because the column was in the predicate of the relay's partial index; a queue row costs one
 * narrow row and one index entry, and deleting it writes no index entry at all (docs/performance.md,
 * "Writes per payment"). No foreign key: its check would cost every payment a trigger, and a queue row
 * whose event is gone is only removed by the relay's next claim, unharmed. `merchant_id` keeps it
 * beside its event when the tables are distributed by merchant (docs/scaling.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table outbox_queue (event_id bigint primary key, merchant_id bigint not null)`.execute(db);
  await sql`insert into outbox_queue (event_id, merchant_id) select id, merchant_id from outbox_events where queued_at is null`.execute(
    db,
  );
  await sql`drop index outbox_unqueued`.execute(db);
  await sql`alter table outbox_events drop column queued_at`.execute(db);
}
