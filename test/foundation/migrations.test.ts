import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { PGliteDialect } from '../../src/storage/pglite-dialect.js';

// An upgrade loses nothing acknowledged: the events a running gateway had not yet handed to delivery
// when it stopped are still waiting for the relay after the migrations of the new version ran.
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
