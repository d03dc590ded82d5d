import { sql, type Kysely } from 'kysely';

/**
 * Fewer index entries per payment (docs/performance.md, "Writes per payment"): each one is a B-tree
 * insert in the WAL on every insert and non-HOT update of the row.
 * - `outbox_events.delivered_at` was never written (deliveries have their own table), so its partial
 *   index held every event forever: column and index go.
 * - The processor's transaction id had two indexes, the unique `(processor, processor_payment_id)` and
 *   `(processor_payment_id)` for callbacks that name only the transaction. One unique index with the
 *   transaction id first serves both lookups and keeps the same constraint.
 * - Payments waiting for the payer are 3-D Secure challenges (any method, `requires_action`) and UPI
 *   requests (`pending` or `requires_action`); a pending card payment is not one of them, so it no
 *   longer gets an entry on its way to the processor. The expiry sweep's queries repeat this predicate.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index outbox_undelivered`.execute(db);
  await sql`alter table outbox_events drop column delivered_at`.execute(db);
  await sql`drop index payments_processor_payment`.execute(db);
  await sql`drop index payments_processor_id`.execute(db);
  await sql`create unique index payments_processor_id on payments (processor_payment_id, processor)
    where processor_payment_id is not null`.execute(db);
  await sql`drop index payments_awaiting_payer`.execute(db);
  await sql`create index payments_awaiting_payer on payments (created_at)
    where status = 'requires_action' or (method = 'upi' and status = 'pending')`.execute(db);
}
