import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    // What the error of a failed payment names beyond its code (3-D Secure result, ACS or PSP response).
    .addColumn('failure_details', 'jsonb')
    // The 3-D Secure outcome kept for disputes: result, ECI, and the authentication value sealed by the vault.
    .addColumn('three_ds', 'jsonb')
    .execute();
}
