import { sql, type Kysely } from 'kysely';

/**
 * The merchant's options of a payment request, which every payment of it inherits unless the merchant's
 * own server names others when it pays (docs/decisions.md "Merchant options of a payment"): where its
 * notifications go, where the payer's browser goes after success or failure, and the capture delay. A
 * checkout session token cannot set them, so the hosted checkout's payments take them from here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_requests
    add column notify_url text,
    add column success_url text,
    add column failure_url text,
    add column capture_delay_hours integer not null default 0`.execute(db);
}
