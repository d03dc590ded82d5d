import { sql, type Kysely } from 'kysely';

/**
 * The expiry sweep of unanswered 3-D Secure challenges and UPI requests (payments/jobs.ts
 * `expireUnanswered`) runs every few seconds on every instance; without an index it read the whole
 * payments table each time. Only payments still waiting for someone are in this index, so it stays
 * small and costs one entry per payment while it is pending.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index payments_awaiting_payer on payments (created_at)
    where status in ('pending', 'requires_action')`.execute(db);
}
