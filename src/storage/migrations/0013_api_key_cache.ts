import { sql, type Kysely } from 'kysely';

/**
 * The exact API-key cache (modules/api-keys/key-cache.ts). The database announces every change that
 * can make a cached key wrong, inside the changing transaction, so the notice is sent exactly when it
 * commits, whoever made it (the API, the CLI, an operator's SQL): a key revoked or deleted, a merchant's
 * status changed. Barriers are numbered notices on the same channel: an instance that has seen barrier
 * n has seen every notice committed before n was drawn (notices arrive in commit order), and records
 * the highest it has seen in gateway_instances.key_cache_seen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('gateway_instances')
    .addColumn('key_cache_seen', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create sequence api_key_cache_barriers`.execute(db);
  await sql`create function api_key_cache_barrier(kind text) returns bigint language plpgsql as $$
    declare n bigint := nextval('api_key_cache_barriers');
    begin
      perform pg_notify('api_key_cache', kind || ':' || n);
      return n;
    end $$`.execute(db);
  await sql`create function api_key_cache_key_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_cache', 'm:' || coalesce(old.merchant_id, new.merchant_id));
      return null;
    end $$`.execute(db);
  await sql`create function api_key_cache_merchant_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_cache', 'm:' || old.id);
      return null;
    end $$`.execute(db);
  await sql`create function api_key_cache_all_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_cache', 'm:*');
      return null;
    end $$`.execute(db);
  await sql`create trigger api_keys_cache_revoked after update of revoked_at on api_keys for each row
    when (old.revoked_at is distinct from new.revoked_at) execute function api_key_cache_key_changed()`.execute(db);
  await sql`create trigger api_keys_cache_deleted after delete on api_keys for each row
    execute function api_key_cache_key_changed()`.execute(db);
  await sql`create trigger merchants_cache_status after update of status on merchants for each row
    when (old.status is distinct from new.status) execute function api_key_cache_merchant_changed()`.execute(db);
  await sql`create trigger merchants_cache_deleted after delete on merchants for each row
    execute function api_key_cache_merchant_changed()`.execute(db);
  for (const table of ['api_keys', 'merchants']) {
    await sql`create trigger ${sql.id(`${table}_cache_truncated`)} after truncate on ${sql.id(table)}
      for each statement execute function api_key_cache_all_changed()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [trigger, table] of [
    ['api_keys_cache_revoked', 'api_keys'],
    ['api_keys_cache_deleted', 'api_keys'],
    ['api_keys_cache_truncated', 'api_keys'],
    ['merchants_cache_status', 'merchants'],
    ['merchants_cache_deleted', 'merchants'],
    ['merchants_cache_truncated', 'merchants'],
  ]) {
    await sql`drop trigger if exists ${sql.id(trigger)} on ${sql.id(table)}`.execute(db);
  }
  for (const fn of ['api_key_cache_key_changed', 'api_key_cache_merchant_changed', 'api_key_cache_all_changed']) {
    await sql`drop function if exists ${sql.id(fn)}()`.execute(db);
  }
  await sql`drop function if exists api_key_cache_barrier(text)`.execute(db);
  await sql`drop sequence if exists api_key_cache_barriers`.execute(db);
  await db.schema.alterTable('gateway_instances').dropColumn('key_cache_seen').execute();
}
