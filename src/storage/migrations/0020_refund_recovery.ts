import { sql, type Kysely } from 'kysely';

/**
 * A refund whose processor call never gave an answer (the gateway crashed after reserving it, or the
 * processor timed out) stays unfinished: pending, without the processor's refund id.
 * - The idempotency claim of the refund request records the refund it committed, so a retry with the
 *   same key resumes that refund instead of refunding again (as `recovery_payment_id` for payments).
 * - The sweep finds unfinished refunds by their last change, in an index that holds only them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('recovery_refund_id', 'bigint').execute();
  await sql`create index refunds_unfinished on refunds (updated_at)
    where status = 'pending' and processor_refund_id is null`.execute(db);
}
