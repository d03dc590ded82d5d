import { sql, type Kysely } from 'kysely';

/**
 * The control panel. Sessions: the cookie's token is stored only as its SHA-256; `expires_at` slides
 * with use (idle time-out) but never past `created_at` plus the absolute lifetime (panel-sessions/tokens.ts).
 * Roles of users (existing users are their merchant's owners). The audit log of sensitive actions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('panel_sessions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index panel_sessions_user on panel_sessions (user_id, expires_at)`.execute(db);

  await db.schema
    .alterTable('users')
    .addColumn('role', 'text', (c) =>
      c
        .notNull()
        .defaultTo('owner')
        .check(sql`role in ('owner','developer','viewer')`),
    )
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('user_id', 'bigint')
    .addColumn('livemode', 'boolean')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index audit_log_merchant on audit_log (merchant_id, id)`.execute(db);
}
