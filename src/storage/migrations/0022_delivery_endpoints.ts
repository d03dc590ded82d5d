import { sql, type Kysely } from 'kysely';

/**
 * A delivery's endpoint (its URL's scheme and authority: what the sender keeps its connections per) is a
 * stored column, defined here once, and pending deliveries are indexed by it. The delivery claim then
 * visits each endpoint with pending deliveries through this index and takes the oldest due of the ones
 * with free places, instead of walking all due deliveries in id order: a receiver that never answers
 * piles up due deliveries at its payment rate, and that walk passed by every one of them at every claim
 * (docs/decisions.md, "Job runner"). The index replaces the one on `next_attempt_at` alone, which only the
 * claim used.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries
    add column endpoint text generated always as (coalesce(substring(url from '^[^:]+://[^/?#]+'), url)) stored`.execute(
    db,
  );
  await sql`drop index webhook_deliveries_due`.execute(db);
  await sql`create index webhook_deliveries_endpoint_due on webhook_deliveries (endpoint, next_attempt_at, id)
    where status = 'pending'`.execute(db);
}
