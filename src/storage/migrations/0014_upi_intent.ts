import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    // A UPI intent's `upi://pay` link, shown while the payer has to act (the QR code and the app deep link).
    .addColumn('upi_intent_url', 'text')
    .execute();
}
