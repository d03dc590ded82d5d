import { sql, type Kysely } from 'kysely';

/**
 * The team (modules/team). Invitations: the link's token is stored only as its SHA-256 (the mail gets
 * the token, derived at send time from `token_nonce` under the gateway's secret: team/invitation-token.ts);
 * at most one open invitation per merchant and e-mail. Users removed from a team keep their row (their
 * keys, customers and audit entries name them) with `removed_at` set: they can no longer sign in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull().references('merchants.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner','developer','viewer')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_nonce', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('notice_id', 'bigint', (c) => c.references('notices.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await sql`create unique index team_invitations_open on team_invitations (merchant_id, email)
    where accepted_at is null and revoked_at is null`.execute(db);
  await sql`create index team_invitations_notice on team_invitations (notice_id)`.execute(db);

  await db.schema.alterTable('users').addColumn('removed_at', 'timestamptz').execute();
}
