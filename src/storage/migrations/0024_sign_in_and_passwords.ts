import { sql, type Kysely } from 'kysely';

/**
 * Sign-in and passwords (modules/auth).
 * - Failed sign-ins are counted per typed e-mail and client address (`login_failures`, re-keyed: the
 *   locks under way at the upgrade are forgotten, they last 30 minutes at most) and per e-mail across
 *   all addresses (`sign_in_guards`), whether or not an account has the e-mail.
 * - `users.token_generation` moves on when every session and access token of the user must end (a
 *   password change or reset); a panel session keeps the generation it was opened in, an access token
 *   carries it (`gen`), and either is refused once they differ.
 * - `account_links`: single-use e-mailed links of a user (a password reset, a sign-in link), their
 *   token only as its SHA-256 (the mail gets the token derived from `token_nonce` under the gateway's
 *   secret, like team invitations: lib/link-token.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_failures').execute();
  await db.schema
    .createTable('login_failures')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('login_failures_pkey', ['email', 'address'])
    .execute();

  await db.schema
    .createTable('sign_in_guards')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('guarded_until', 'timestamptz')
    .addColumn('noticed_at', 'timestamptz')
    .execute();

  await db.schema
    .alterTable('users')
    .addColumn('token_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('panel_sessions')
    .addColumn('token_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('account_links')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('password_reset','sign_in')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_nonce', 'text', (c) => c.notNull())
    .addColumn('notice_id', 'bigint', (c) => c.references('notices.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await sql`create index account_links_user on account_links (user_id, created_at)`.execute(db);
  await sql`create index account_links_notice on account_links (notice_id)`.execute(db);
}
