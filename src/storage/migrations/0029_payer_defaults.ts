import { sql, type Kysely } from 'kysely';

/**
 * What the merchant already knows of the payer, so the hosted checkout need not ask it
 * (docs/decisions.md "Payer defaults of a payment request"): a payment request's payer defaults (the
 * body's `payer`, completed from its customer at creation) and a customer's country.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_requests add column payer jsonb not null default '{}'::jsonb`.execute(db);
  await sql`alter table customers add column country text`.execute(db);
}
