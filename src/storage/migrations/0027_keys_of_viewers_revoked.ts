import { sql, type Kysely } from 'kysely';

/**
 * A viewer or a removed user holds no API key (docs/decisions.md "Team"). Before this version a demotion to
 * viewer left the user's keys working, with a developer's powers: those keys are revoked now. The key
 * cache's trigger (0013) tells every listening instance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update api_keys set revoked_at = now()
    where revoked_at is null
      and user_id in (select id from users where role = 'viewer' or removed_at is not null)`.execute(db);
}
