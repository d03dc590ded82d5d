import type { Kysely } from 'kysely';

/** Whether the hosted checkout offers wallet payments, per merchant and mode (off until the merchant enables it). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchant_settings')
    .addColumn('wallet_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}
