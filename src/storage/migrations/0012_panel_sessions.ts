import { sql, type Kysely } from 'kysely';

/**
 * Control-panel sessions: the cookie's token is stored only as its SHA-256. `expires_at` slides with
 * use (idle time-out) but never past `created_at` plus the absolute lifetime (panel-sessions/tokens.ts).
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
}
