import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the merchant's reporting reads (lists, CSV export, timeline, dashboard, received
 * callbacks); the dashboard aggregates at query time (docs/decisions.md "Reporting"). And the
 * merchant a test callback was sent for, when the caller named itself with its API key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Every payment of one merchant and mode, newest first (the payments list without a request id).
  await sql`create index payments_list on payments (merchant_id, livemode, id desc)`.execute(db);
  // The dashboard and date-range lists: covering, so a day's aggregates read the index alone.
  await sql`create index payments_report on payments (merchant_id, livemode, created_at)
    include (status, currency, amount, decline_code, decline_reason)`.execute(db);
  // The dashboard groups a range by UTC day, currency, status and decline code: without these statistics
  // the planner takes every payment for a group of its own and sorts them all instead of hashing a few groups.
  await sql`create statistics payments_report_groups (ndistinct)
    on ((created_at at time zone 'UTC')::date), currency, status, decline_code from payments`.execute(db);
  await sql`create index payment_requests_created on payment_requests (merchant_id, livemode, created_at)`.execute(db);
  // A received provider callback names the processor's transaction: which merchant's payment it is.
  await sql`create index payments_processor_payment on payments (processor_payment_id) where processor_payment_id is not null`.execute(
    db,
  );
  // A payment request's timeline: the events of its payments and refunds (outbox object ids).
  await sql`create index outbox_object on outbox_events (merchant_id, livemode, object_id)`.execute(db);
  await db.schema.alterTable('callback_events').addColumn('merchant_id', 'bigint').execute();
  await db.schema.alterTable('callback_events').addColumn('livemode', 'boolean').execute();
  await sql`create index callback_events_merchant on callback_events (merchant_id, livemode, id) where merchant_id is not null`.execute(
    db,
  );
}
