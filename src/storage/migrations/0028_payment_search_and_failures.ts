import { sql, type Kysely } from 'kysely';

/**
 * The control panel's payment search and the dashboard's failures (docs/decisions.md "Payment search and
 * the dashboard's declines"):
 * - A payer's e-mail finds that payer's payments, newest first, in one index range: the list's keyset walk
 *   would otherwise read every payment of the merchant to find a rare address.
 * - The dashboard counts every failed payment by its reason, and a failure without an issuer's decline code
 *   (3-D Secure not authenticated, UPI, processor errors) is told apart by its failure code: the covering
 *   index and the grouping statistics gain that column, so the dashboard still reads the index alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index payments_payer_email on payments
    (merchant_id, livemode, (lower(payer ->> 'email')), id desc)`.execute(db);
  await sql`drop index payments_report`.execute(db);
  await sql`create index payments_report on payments (merchant_id, livemode, created_at)
    include (status, currency, amount, decline_code, decline_reason, failure_code)`.execute(db);
  await sql`drop statistics payments_report_groups`.execute(db);
  await sql`create statistics payments_report_groups (ndistinct)
    on ((created_at at time zone 'UTC')::date), currency, status, decline_code, failure_code from payments`.execute(db);
}
