import { sql, type Kysely } from 'kysely';

/**
 * Merchant notifications: settings per merchant and mode (the webhook secret sealed by the vault, the
 * previous one kept for the rotation window), one delivery per outbox event and target, and every
 * attempt logged. `queued_at` marks an outbox event handed to delivery (claimed by one instance).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchant_settings')
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('business_name', 'text')
    .addColumn('notify_url', 'text')
    .addColumn('checkout_origins', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('event_types', 'jsonb')
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('previous_webhook_secret', 'text')
    .addColumn('previous_valid_until', 'timestamptz')
    .addColumn('endpoint_disabled_at', 'timestamptz')
    .addColumn('endpoint_disabled_reason', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('merchant_settings_pk', ['merchant_id', 'livemode'])
    .execute();

  await db.schema.alterTable('outbox_events').addColumn('queued_at', 'timestamptz').execute();
  await sql`create index outbox_unqueued on outbox_events (id) where queued_at is null`.execute(db);
  await sql`create index outbox_merchant on outbox_events (merchant_id, livemode, id)`.execute(db);

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('event_id', 'bigint', (c) => c.notNull().references('outbox_events.id').onDelete('cascade'))
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('order_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','succeeded','failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_order on webhook_deliveries (order_key, id) where status = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_event on webhook_deliveries (event_id)`.execute(db);

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await sql`create index webhook_attempts_event on webhook_attempts (event_id, id)`.execute(db);

  // At most one report a day per merchant, mode and subject (a deprecated feature, an exposed key).
  await db.schema
    .createTable('daily_reports')
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_reports_pk', ['merchant_id', 'livemode', 'subject', 'day'])
    .execute();

  // E-mail notices sent (or written to the file outbox) to a merchant's users.
  await db.schema
    .createTable('notices')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz')
    .execute();
  await sql`create index notices_merchant on notices (merchant_id, id)`.execute(db);
}
