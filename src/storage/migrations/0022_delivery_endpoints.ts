import { sql, type Kysely } from 'kysely';

/**
 * Each delivery stores its endpoint (its URL's origin, which the sender keeps a connection pool per:
 * src/modules/notifications/sender.ts, `endpointOf`), and pending deliveries are indexed by it. The
 * delivery claim then steps from endpoint to endpoint through this index and reads the oldest due of the
 * ones with free places, instead of walking all due deliveries in id order: a receiver that never answers
 * piles up due deliveries at its payment rate, and that walk passed by every one of them at every claim
 * (docs/decisions.md, "Job runner"). The index replaces the one on `next_attempt_at` alone, which only the
 * claim used. Deliveries made before have their origin's usual spelling: scheme and authority, lower case.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries add column endpoint text`.execute(db);
  await sql`update webhook_deliveries set endpoint = lower(coalesce(substring(url from '^[^:]+://[^/?#]+'), url))`.execute(
    db,
  );
  await sql`alter table webhook_deliveries alter column endpoint set not null`.execute(db);
  await sql`drop index webhook_deliveries_due`.execute(db);
  await sql`create index webhook_deliveries_endpoint_due on webhook_deliveries (endpoint, next_attempt_at, id)
    where status = 'pending'`.execute(db);
}
