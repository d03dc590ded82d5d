import { sql, type Kysely } from 'kysely';

/**
 * - The idempotency claim of a request that creates something (a refund, a payment request, a
 *   customer) records the object it committed, in the same transaction, so a retry with the same key
 *   after a crash between that commit and the stored answer answers with that object (and a refund is
 *   asked for again) instead of creating another; as `recovery_payment_id` does for payments.
 * - A refund whose processor call gave no answer (the gateway died during it, the processor timed out)
 *   stays unfinished: pending, without the processor's refund id. The sweep that asks again finds them
 *   by their last change, in an index that holds only them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('recovery_object_id', 'bigint').execute();
  await sql`create index refunds_unfinished on refunds (updated_at)
    where status = 'pending' and processor_refund_id is null`.execute(db);
}
