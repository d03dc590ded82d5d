import { sql, type Kysely } from 'kysely';

/**
 * Every callback received, verified or (test endpoints) not. Not merchant-owned: a provider
 * callback names a processor transaction, and the merchant is learned while processing it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('callback_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) =>
      c.notNull().check(sql`source in ('svc','svc-gateway','svcwh','3ds','test/json','test/form','test/text')`),
    )
    .addColumn('event_id', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('status', 'text')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('signature_valid', 'boolean')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .addColumn('processing_error', 'text')
    .addCheckConstraint('callback_events_provider_event_id', sql`source like 'test/%' or event_id is not null`)
    .execute();
  // A provider re-sends an event with the same eventId: the second insert is a no-op.
  // Test endpoints record every call, so they are outside the constraint.
  await sql`create unique index callback_events_event on callback_events (source, event_id) where source not like 'test/%'`.execute(
    db,
  );
  await sql`create index callback_events_transaction on callback_events (transaction_id, received_at) where transaction_id is not null`.execute(
    db,
  );
}
