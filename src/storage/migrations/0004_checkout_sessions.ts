import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A checkout session token is stored only as its SHA-256 hash; the token itself is shown once.
  await db.schema
    .createTable('checkout_sessions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('payment_request_id', 'bigint', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index checkout_sessions_request on checkout_sessions (merchant_id, payment_request_id)`.execute(db);
  // Lists filter on status and creation time within one merchant and mode.
  await sql`create index payment_requests_status on payment_requests (merchant_id, livemode, status, id desc)`.execute(db);
}
