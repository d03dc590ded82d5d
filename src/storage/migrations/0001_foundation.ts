import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active','restricted','suspended')`),
    )
    .addColumn('default_processor', 'text', (c) => c.notNull().defaultTo('acme'))
    .addColumn('notify_url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('users_merchant_idx').on('users').column('merchant_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('test','live')`))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('exposed_at', 'timestamptz')
    .execute();
  // One active key per user and mode: a rotation that races another rotation fails instead of leaving two.
  await sql`create unique index api_keys_one_active on api_keys (user_id, mode) where revoked_at is null`.execute(db);

  await db.schema
    .createTable('login_failures')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('system_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
