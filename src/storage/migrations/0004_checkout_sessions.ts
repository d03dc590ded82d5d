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
  // No index on payment_requests.status: it changes twice per payment, and an index on it would
  // turn both updates into full index rewrites; status filters walk the merchant's list index.
}
