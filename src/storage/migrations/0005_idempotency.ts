import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per (merchant, key): the claim while the first request runs, then its stored response.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    // SHA-256 of method, path, key mode and the raw body: "the same request".
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('request_method', 'text', (c) => c.notNull())
    .addColumn('request_path', 'text', (c) => c.notNull())
    // Random per claim, so only the request holding the claim can complete or release it.
    .addColumn('claim_token', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    // Null while the first request is in flight.
    .addColumn('response_status', 'integer')
    .addColumn('response_content_type', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['merchant_id', 'key'])
    .execute();
  // Each stored response deletes a few of the same merchant's expired rows (see src/http/idempotency.ts).
  await sql`create index idempotency_keys_expiry on idempotency_keys (merchant_id, expires_at)`.execute(db);
}
