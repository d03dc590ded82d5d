import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Vaulted cards: PAN only as AES-256-GCM ciphertext (+ key id for rotation), a keyed fingerprint,
  // and the display parts. The merchant-facing token is stored as a SHA-256 hash. No CVV column, ever.
  await db.schema
    .createTable('cards')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('pan_ciphertext', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('bin', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('holder_name', 'text', (c) => c.notNull())
    // A token becomes usable once a payment with the card was approved.
    .addColumn('usable', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('payment_request_id', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending','requires_action','authorized','succeeded','failed','canceled')`),
    )
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('processor_payment_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_captured', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('amount_refunded', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('card_id', 'bigint')
    .addColumn('capture_delay_hours', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('capture_at', 'timestamptz')
    .addColumn('decline_code', 'text')
    .addColumn('decline_reason', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('challenge_url', 'text')
    .addColumn('payer', 'jsonb', (c) => c.notNull())
    .addColumn('options', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // A payment request is paid at most once: at most one live attempt per request, enforced by the
  // database itself, so concurrent submissions on any number of instances cannot both proceed.
  await sql`create unique index payments_one_active on payments (payment_request_id)
    where status in ('pending','requires_action','authorized','succeeded')`.execute(db);
  await sql`create index payments_request on payments (merchant_id, payment_request_id, id desc)`.execute(db);
  // Pending payments are few; the reconciliation sweep finds the stale ones through this small index.
  await sql`create index payments_pending on payments (updated_at) where status = 'pending'`.execute(db);
  await sql`create unique index payments_processor_id on payments (processor, processor_payment_id) where processor_payment_id is not null`.execute(
    db,
  );

  await db.schema
    .createTable('refunds')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('payment_id', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','succeeded','failed')`))
    .addColumn('reason', 'text')
    .addColumn('processor_refund_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index refunds_payment on refunds (merchant_id, payment_id)`.execute(db);

  // Free space on each page lets status updates of payment requests stay on the page (HOT updates).
  await sql`alter table payment_requests set (fillfactor = 85)`.execute(db);

  // Transactional outbox: every state change writes its notification here in the same transaction.
  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('delivered_at', 'timestamptz')
    .execute();
  await sql`create index outbox_undelivered on outbox_events (id) where delivered_at is null`.execute(db);
}
