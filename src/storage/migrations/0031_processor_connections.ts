import { sql, type Kysely } from 'kysely';

/**
 * A merchant's connections to real processors (modules/processor-connections), one mode each. The
 * credentials are one JSON document encrypted with the card vault's current key (AES-256-GCM), the key's
 * id beside it so the keys rotate as the vault's do; they are never stored in clear. `public_id` is what
 * the API and the webhook receivers' paths name (pc_ + random base62): the row id stays internal and
 * cannot be guessed from it. Reads are always by merchant and mode, ordered by priority.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('processor_connections')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('test','live')`))
    .addColumn('processor', 'text', (c) => c.notNull().check(sql`processor in ('stripe','adyen','sandbox')`))
    .addColumn('name', 'text')
    .addColumn('credentials_ciphertext', 'text', (c) => c.notNull())
    .addColumn('credentials_key_id', 'text', (c) => c.notNull())
    .addColumn('slots', sql`text[]`, (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index processor_connections_merchant_mode on processor_connections (merchant_id, mode)`.execute(db);
}
