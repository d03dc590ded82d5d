import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { claimDueDeliveries } from '../../src/modules/notifications/repository.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { PGliteDialect } from '../../src/storage/pglite-dialect.js';

// An upgrade loses nothing acknowledged: what a running gateway left waiting when it stopped (events not
// yet handed to delivery, deliveries not yet sent) is still found after the new version's migrations ran.
const pglite = new PGlite();
const db = new Kysely<any>({ dialect: new PGliteDialect(pglite) });
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
