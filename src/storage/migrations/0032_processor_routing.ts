import { sql, type Kysely } from 'kysely';

/**
 * Payments routed through merchants' processor connections:
 * - `payments.processor_connection_id`: the connection (its public id, `pc_…`) an attempt went
 *   through, so captures, voids, refunds, reconciliation and webhooks reach the same account. Null
 *   for the built-in sandbox processors. Not a foreign key: a removed connection leaves its payments
 *   naming it, and their follow-ups answer that it is gone.
 * - `merchant_settings.retry_decline_codes`: the decline codes a merchant has retried on the next
 *   connection of a path (none by default).
 * - `processor_attempts`: what the Stripe connector sent for an authorization, by our reference,
 *   so any instance can settle a timed-out one after a restart. Never card data: the PaymentMethod is
 *   named by id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payments add column processor_connection_id text`.execute(db);
  await sql`alter table merchant_settings add column retry_decline_codes text[] not null default '{}'`.execute(db);
  await sql`create table processor_attempts (
    reference text primary key,
    facts jsonb not null,
    created_at timestamptz not null default now()
  )`.execute(db);
}
