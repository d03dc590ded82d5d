import { sql, type Kysely } from 'kysely';

/**
 * - Idempotency fingerprints become keyed HMACs over a body without card data (src/http/idempotency.ts).
 *   The unkeyed SHA-256 digests stored so far covered the raw body, card number and CVV included, and
 *   could be matched against candidate bodies: they are removed. Until such a key expires (24 hours) it
 *   stands for any request with its method and path (the column is null then); its stored answer and
 *   recovery point stay, so a retry still gets its answer and never runs twice.
 * - Expired keys of every merchant are purged on a schedule, oldest first: by an index on expiry alone,
 *   which replaces the per-merchant one the purge on each stored answer used.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table idempotency_keys alter column fingerprint drop not null`.execute(db);
  await sql`update idempotency_keys set fingerprint = null`.execute(db);
  await sql`drop index idempotency_keys_expiry`.execute(db);
  await sql`create index idempotency_keys_expires on idempotency_keys (expires_at)`.execute(db);
}
