import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';

// The embedded store in a worker thread of its own (EMBEDDED_STORE_WORKER=true, src/storage/pglite-thread.ts):
// what crosses between the threads (rows, errors, notices) arrives as it would from the gateway's own
// thread, and PostgreSQL's work no longer holds up the gateway's. The rest of the suite runs on it too
// (scripts/test.sh: the embedded store's pass on Node 24), and pglite-recovery.test.ts in both threads.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ dataDir: 'memory://', embeddedWorker: true });
});
afterAll(async () => storage.close());

it('runs statements beside the gateway’s JavaScript: its timers keep firing while PostgreSQL works', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    await sql`select pg_sleep(0.5)`.execute(storage.db);
  } finally {
    clearInterval(timer);
  }
  // In the gateway's own thread the sleep holds the event loop: no tick at all (checked).
  expect(ticks).toBeGreaterThan(0);
});

it('answers rows with their types, and errors with their SQLSTATE, severity and constraint', async () => {
  const { rows } = await sql<{ n: number; at: Date; doc: unknown; bytes: Uint8Array }>`
    select 42::int8 as n, timestamptz '2026-03-01 12:00:00+00' as at, '{"a":[1,{"b":null}]}'::jsonb as doc,
           '\\x0102'::bytea as bytes`.execute(storage.db);
  expect(rows).toEqual([
    { n: 42, at: new Date('2026-03-01T12:00:00Z'), doc: { a: [1, { b: null }] }, bytes: new Uint8Array([1, 2]) },
  ]);

  await storage.db.insertInto('system_secrets').values({ name: 'probe', value: 'x' }).execute();
  const error = await storage.db
    .insertInto('system_secrets')
    .values({ name: 'probe', value: 'y' })
    .execute()
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ code: '23505', severity: 'ERROR', constraint: 'system_secrets_pkey' });
  // The failed insert changed nothing, and the store goes on.
  expect(await storage.db.selectFrom('system_secrets').select('value').where('name', '=', 'probe').execute()).toEqual([
    { value: 'x' },
  ]);
});

it('delivers a notice before the answer to the statement that committed it, never before the commit', async () => {
  const heard: string[] = [];
  const stop = await storage.listen('probe_channel', { notice: (payload) => heard.push(payload), lost: () => {} });
  await sql`select pg_notify('probe_channel', 'alone')`.execute(storage.db);
  expect(heard).toEqual(['alone']);
  await storage.db.transaction().execute(async (trx) => {
    await sql`select pg_notify('probe_channel', 'in a transaction')`.execute(trx);
    expect(heard).toEqual(['alone']);
  });
  expect(heard).toEqual(['alone', 'in a transaction']);
  await stop();
  await sql`select pg_notify('probe_channel', 'after')`.execute(storage.db);
  expect(heard).toEqual(['alone', 'in a transaction']);
});

it('fails a statement whose rows are nested too deeply to pass between threads, and goes on', async () => {
  // Deeper than any JSON body the API accepts (64 levels), so only written by hand.
  const deep = '{"a":'.repeat(2_000) + '{}' + '}'.repeat(2_000);
  await expect(sql`select ${deep}::jsonb as doc`.execute(storage.db)).rejects.toThrow(/could not be read/);
  await storage.ping();
});

// Opening an embedded store on disk twice takes seconds, more on a busy machine.
it('keeps on disk what it committed, across a restart', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-worker-'));
  try {
    const first = await openStorage({ dataDir: dir, embeddedWorker: true });
    await first.db.insertInto('system_secrets').values({ name: 'kept', value: 'on disk' }).execute();
    await first.close();
    const second = await openStorage({ dataDir: dir, embeddedWorker: true });
    const kept = await second.db.selectFrom('system_secrets').select('value').where('name', '=', 'kept').execute();
    await second.close();
    expect(kept).toEqual([{ value: 'on disk' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it(
  'keeps a process alive while a statement is under way, and not once the store is idle',
  { timeout: 60_000 },
  async () => {
    // A command-line run that never closes its store must still get its answer, then end by itself. On
    // the built gateway (scripts/test.sh builds it first), whose worker is plain JavaScript as in production.
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-worker-'));
    const script = path.join(dir, 'answer.mjs');
    writeFileSync(
      script,
      `import { openStorage } from ${JSON.stringify(path.resolve('dist/src/storage/db.js'))};
     const storage = await openStorage({ dataDir: 'memory://', embeddedWorker: true });
     await storage.ping();
     console.log('answered');`,
    );
    const run = promisify(execFile)(process.execPath, [script], { timeout: 50_000, cwd: process.cwd() }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    expect((await run).stdout.trim()).toBe('answered');
  },
);
