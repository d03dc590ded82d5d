import { createHash } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { claimDueDeliveries } from '../../src/modules/notifications/repository.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { pgTypes } from '../../src/storage/db.js';
import { emptyDatabaseUrl } from '../helpers/database.js';

// An upgrade loses nothing acknowledged: what a running gateway left waiting when it stopped (events not
// yet handed to delivery, deliveries not yet sent) is still found after the new version's migrations ran.
/** A database without any table, each migration applied by the test itself. */
const emptyStore = async () =>
  new Kysely<any>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: await emptyDatabaseUrl(), max: 2, types: pgTypes }),
    }),
  });

const db = await emptyStore();
const migrator = new Migrator({ db, provider: migrationProvider });
afterAll(async () => db.destroy());

it('moves the events not yet handed to delivery into the relay’s queue (0021)', async () => {
  expect((await migrator.migrateTo('0020_recovery_objects')).error).toBeUndefined();
  const { rows } = await sql<{ id: number; queued: boolean }>`
    insert into outbox_events (merchant_id, livemode, type, object_id, payload, created_at, queued_at)
    values (7, false, 'payment.succeeded', 1, '{}', now(), now()),
           (7, false, 'payment.succeeded', 2, '{}', now(), null),
           (8, true, 'payment.failed', 3, '{}', now(), null)
    returning id, queued_at is not null as queued`.execute(db);

  expect((await migrator.migrateTo('0021_outbox_queue')).error).toBeUndefined();
  const queue = await db.selectFrom('outbox_queue').selectAll().orderBy('event_id').execute();
  expect(queue.map((q) => ({ event_id: Number(q.event_id), merchant_id: Number(q.merchant_id) }))).toEqual(
    rows.filter((r) => !r.queued).map((r, i) => ({ event_id: Number(r.id), merchant_id: [7, 8][i] })),
  );
});

it('gives the deliveries made before it their endpoint, so the claim finds the pending ones (0022)', async () => {
  await sql`insert into webhook_deliveries (event_id, merchant_id, livemode, url, order_key, status, next_attempt_at, created_at)
    select id, 7, false, url, 'payment-' || url, 'pending', now(), now()
    from (select min(id) as id from outbox_events) e,
      unnest(array['https://Shop.example:8443/hooks?x=1', 'http://shop.example/a']) url`.execute(db);

  expect((await migrator.migrateTo('0022_delivery_endpoints')).error).toBeUndefined();
  const deliveries = await db.selectFrom('webhook_deliveries').select(['url', 'endpoint']).orderBy('id').execute();
  expect(deliveries).toEqual([
    { url: 'https://Shop.example:8443/hooks?x=1', endpoint: 'https://shop.example:8443' },
    { url: 'http://shop.example/a', endpoint: 'http://shop.example' },
  ]);
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  const places = { free: new Map<string, number>(), otherwise: 4 };
  const claimed = await claimDueDeliveries(db, new Date(Date.now() + 1000), 60, 50, places);
  expect(claimed.map((d) => d.url).sort()).toEqual(['http://shop.example/a', 'https://Shop.example:8443/hooks?x=1']);
});

it('marks replays across receivers received before events were unique, and redacts stored authentication values (0025)', async () => {
  const own = await emptyStore();
  try {
    const ownMigrator = new Migrator({ db: own, provider: migrationProvider });
    expect((await ownMigrator.migrateTo('0022_delivery_endpoints')).error).toBeUndefined();
    const cavv = 'AAABBEg0VhI0VniQEjRWAAAAAAA=';
    const threeDs = JSON.stringify({ eventId: 'evt_3ds', status: 'success', authenticationValue: cavv });
    const { rows } = await sql<{ id: string }>`
      insert into callback_events (source, event_id, status, payload, raw_body, signature_valid, received_at)
      values ('svc', 'evt_1', 'refunded', '{}', '{}', true, now()),
             ('svcwh', 'evt_1', 'refunded', '{}', '{}', true, now()),
             ('svc-gateway', 'evt_1', 'refunded', '{}', '{}', true, now()),
             ('3ds', 'evt_3ds', 'success', ${threeDs}, ${threeDs}, true, now()),
             ('test/json', 'evt_1', null, '{"cvv": "7391"}', '{"cvv": "7391"}', null, now())
      returning id`.execute(own);

    expect((await ownMigrator.migrateTo('0025_callback_replays_and_secrets')).error).toBeUndefined();
    const stored = await own.selectFrom('callback_events').selectAll().orderBy('id').execute();
    expect(stored.map((r) => (r.duplicate_of === null ? null : String(r.duplicate_of)))).toEqual([
      null,
      String(rows[0].id),
      String(rows[0].id),
      null,
      null,
    ]);
    expect(stored[3].payload).toEqual({ eventId: 'evt_3ds', status: 'success', authenticationValue: '[redacted]' });
    expect(JSON.parse(stored[3].raw_body)).toEqual(stored[3].payload);
    expect(JSON.stringify(stored)).not.toMatch(new RegExp(`${cavv.slice(0, 12)}|7391`));
    // From now on the event is one across receivers.
    const again = await sql`insert into callback_events (source, event_id, payload, received_at)
      values ('3ds', 'evt_1', '{}', now()) on conflict do nothing returning id`.execute(own);
    expect(again.rows).toEqual([]);
  } finally {
    await own.destroy();
  }
});

it('revokes the API keys that viewers and removed users still held (0027)', async () => {
  // A store of its own: the tests above have migrated theirs to the latest already.
  const store = await emptyStore();
  try {
    const migrator = new Migrator({ db: store, provider: migrationProvider });
    expect((await migrator.migrateTo('0022_delivery_endpoints')).error).toBeUndefined();
    await sql`insert into merchants (id, name) values (1, 'Shop')`.execute(store);
    await sql`insert into users (id, merchant_id, email, password_hash, role, removed_at)
      values (1, 1, 'owner@example.com', 'x', 'owner', null), (2, 1, 'dev@example.com', 'x', 'developer', null),
             (3, 1, 'demoted@example.com', 'x', 'viewer', null), (4, 1, 'gone@example.com', 'x', 'developer', now())`.execute(
      store,
    );
    await sql`insert into api_keys (merchant_id, user_id, mode, key_hash, display_prefix)
      select 1, u, m, u || m, 'svc_' || m from unnest(array[1, 2, 3, 4]) u, unnest(array['test', 'live']) m`.execute(
      store,
    );

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const active = await store
      .selectFrom('api_keys')
      .select(['user_id', 'mode'])
      .where('revoked_at', 'is', null)
      .orderBy('user_id')
      .orderBy('mode')
      .execute();
    expect(active.map((k) => [Number(k.user_id), k.mode])).toEqual([
      [1, 'live'],
      [1, 'test'],
      [2, 'live'],
      [2, 'test'],
    ]);
  } finally {
    await store.destroy();
  }
});

it('removes the unkeyed digests of stored idempotency keys, keeping their answers and recovery points (0023)', async () => {
  const store = await emptyStore();
  try {
    const upgrade = new Migrator({ db: store, provider: migrationProvider });
    expect((await upgrade.migrateTo('0022_delivery_endpoints')).error).toBeUndefined();
    // As the gateway stored them before: SHA-256 of method, path, mode and the raw body, card data included.
    const digest = createHash('sha256')
      .update('POST\n/payments/h2h/1\ntest\n{"number":"4242424242424242"}')
      .digest('hex');
    await sql`insert into idempotency_keys (merchant_id, key, fingerprint, request_method, request_path, claim_token,
        claimed_at, expires_at, response_status, response_content_type, response_body, recovery_payment_id)
      values (7, 'answered', ${digest}, 'POST', '/payments/h2h/1', 't1', now(), now() + interval '1 day', 200,
          'application/json', 'k1.sealed', null),
        (7, 'lost', ${digest}, 'POST', '/payments/h2h/1', 't2', now(), now() + interval '1 day', null, null, null, 41)
    `.execute(store);

    expect((await upgrade.migrateTo('0023_keyed_idempotency_fingerprints')).error).toBeUndefined();
    const keys = await store
      .selectFrom('idempotency_keys')
      .select(['key', 'fingerprint', 'response_body', 'recovery_payment_id'])
      .orderBy('key')
      .execute();
    expect(keys).toEqual([
      { key: 'answered', fingerprint: null, response_body: 'k1.sealed', recovery_payment_id: null },
      { key: 'lost', fingerprint: null, response_body: null, recovery_payment_id: 41 },
    ]);
    const dump = await sql<{ row: string }>`select t::text as row from idempotency_keys t`.execute(store);
    expect(JSON.stringify(dump.rows)).not.toContain(digest);
  } finally {
    await store.destroy();
  }
});

it('indexes the completed jobs by completion time and the failed ones per merchant (0030)', async () => {
  const store = await emptyStore();
  try {
    const upgrade = new Migrator({ db: store, provider: migrationProvider });
    expect((await upgrade.migrateTo('0029_payer_defaults')).error).toBeUndefined();
    const indexes = async () =>
      (
        await sql<{
          indexdef: string;
        }>`select indexdef from pg_indexes where tablename = 'jobs' order by indexname`.execute(store)
      ).rows.map((row) => row.indexdef.replace(/ USING btree|public\./g, ''));
    const before = await indexes();

    expect((await upgrade.migrateTo('0030_job_retention')).error).toBeUndefined();
    expect((await indexes()).filter((index) => !before.includes(index))).toEqual([
      'CREATE INDEX jobs_completed ON jobs (completed_at) WHERE (completed_at IS NOT NULL)',
      'CREATE INDEX jobs_failed ON jobs (merchant_id, id) WHERE (failed_at IS NOT NULL)',
    ]);
  } finally {
    await store.destroy();
  }
});
