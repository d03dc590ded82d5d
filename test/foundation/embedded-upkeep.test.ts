import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import type { UpkeepDone } from '../../src/storage/upkeep.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { startTestGateway } from '../helpers/gateway.js';

// PGlite has no autovacuum: without the gateway's upkeep a table's dead rows stay, the planner never has
// statistics (reltuples −1) and no transaction id is ever frozen.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ dataDir: 'memory://' });
  await sql`create table churn (id int primary key, v int not null)`.execute(storage.db);
});
afterAll(async () => storage?.close());

interface TableStats {
  reltuples: number;
  dead: number;
  changed: number;
  inserted: number;
}

async function statsOf(table: string): Promise<TableStats> {
  const { rows } = await sql<TableStats>`
    select c.reltuples, s.n_dead_tup as dead, s.n_mod_since_analyze as changed, s.n_ins_since_vacuum as inserted
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = ${table}`.execute(storage.db);
  return rows[0];
}

/** The backend flushes its activity counters at most once a second; waits until `ready` sees them. */
async function countersShow(table: string, ready: (stats: TableStats) => boolean) {
  await expect.poll(async () => ready(await statsOf(table)), { timeout: 10_000, interval: 100 }).toBe(true);
}

/** Calls upkeep until nothing is due; what each call did. */
async function upkeepUntilQuiet(): Promise<UpkeepDone[]> {
  const done: UpkeepDone[] = [];
  for (let call = 0; call < 100; call++) {
    const one = await storage.upkeep!();
    if (!one) return done;
    done.push(one);
  }
  throw new Error(`upkeep never ran out of work: ${JSON.stringify(done.slice(-3))}`);
}

it('vacuums and analyzes a table past autovacuum’s thresholds, once, and then finds nothing due', async () => {
  await sql`insert into churn select g, 0 from generate_series(1, 2000) g`.execute(storage.db);
  await countersShow('churn', (s) => s.inserted >= 2000);
  expect((await statsOf('churn')).reltuples).toBe(-1);

  const first = await upkeepUntilQuiet();
  // The most due first: 2,000 changes against a threshold of 50 outrank the other tables, never analyzed.
  expect(first[0]).toEqual(expect.objectContaining({ table: 'churn', vacuumed: true, analyzed: true }));
  expect(first.filter((d) => d.table === 'churn')).toHaveLength(1);
  expect(await statsOf('churn')).toEqual({ reltuples: 2000, dead: 0, changed: 0, inserted: 0 });

  // 400 dead rows stay under 50 + 20 % of 2,000; their changes pass 50 + 10 %: analyzed, not vacuumed.
  await sql`update churn set v = 1 where id <= 400`.execute(storage.db);
  await countersShow('churn', (s) => s.dead >= 400);
  expect(await upkeepUntilQuiet()).toEqual([
    expect.objectContaining({ table: 'churn', vacuumed: false, analyzed: true }),
  ]);
  expect(await statsOf('churn')).toEqual(expect.objectContaining({ dead: 400, changed: 0 }));

  // 100 more pass the dead-row threshold (450): vacuumed; their 100 changes stay under 250: not analyzed.
  await sql`update churn set v = 2 where id > 1900`.execute(storage.db);
  await countersShow('churn', (s) => s.dead >= 500);
  expect(await upkeepUntilQuiet()).toEqual([
    expect.objectContaining({ table: 'churn', vacuumed: true, analyzed: false }),
  ]);
  expect((await statsOf('churn')).dead).toBe(0);
});

it('analyzes a table that was never analyzed as soon as it has rows, however few, and does not vacuum it', async () => {
  await upkeepUntilQuiet();
  await sql`create table few (id int primary key)`.execute(storage.db);
  await sql`insert into few select g from generate_series(1, 10) g`.execute(storage.db);
  await countersShow('few', (s) => s.inserted >= 10);
  // 10 changes stay under every threshold (50 + 10 %, 1,000 + 20 %): only "never analyzed" makes it due.
  expect(await upkeepUntilQuiet()).toEqual([
    expect.objectContaining({ table: 'few', vacuumed: false, analyzed: true }),
  ]);
  expect((await statsOf('few')).reltuples).toBe(10);
});

it('vacuums, freezing it, a quiet table whose oldest transaction id has passed vacuum_freeze_table_age', async () => {
  await sql`create table quiet (id int primary key)`.execute(storage.db);
  await sql`insert into quiet values (1)`.execute(storage.db);
  await countersShow('quiet', (s) => s.inserted >= 1);
  await upkeepUntilQuiet(); // analyzed: it was never analyzed
  const age = async () =>
    (
      await sql<{ age: number }>`select age(relfrozenxid) as age from pg_class where relname = 'quiet'`.execute(
        storage.db,
      )
    ).rows[0].age;
  // PostgreSQL's threshold is 150 million transactions; lowered for this session (the store has one), and
  // with rows frozen however young, so the vacuum can move the table's oldest transaction id to now.
  await sql`set vacuum_freeze_table_age = 1000`.execute(storage.db);
  await sql`set vacuum_freeze_min_age = 0`.execute(storage.db);
  try {
    for (let i = 0; i < 1100; i++) await sql`select pg_current_xact_id()`.execute(storage.db);
    expect(await age()).toBeGreaterThan(1000);
    // No dead rows, one insert, no changes since its analyze: only the transaction ids' age makes it due.
    expect(await upkeepUntilQuiet()).toContainEqual(
      expect.objectContaining({ table: 'quiet', vacuumed: true, analyzed: false }),
    );
    expect(await age()).toBeLessThan(100);
  } finally {
    await sql`reset vacuum_freeze_table_age`.execute(storage.db);
    await sql`reset vacuum_freeze_min_age`.execute(storage.db);
  }
});

it('is not offered on a PostgreSQL server, whose autovacuum does this', async () => {
  const server = await openStorage({ databaseUrl: await freshPostgresDatabaseUrl(), dataDir: '' });
  try {
    expect(server.kind).toBe('postgres');
    expect(server.upkeep).toBeUndefined();
  } finally {
    await server.close();
  }
});

it('the background loop of a gateway on the embedded store runs it, logs what it did and times it in /metrics', async () => {
  const token = 'metrics-token-0123456789abcdefghijklmnop';
  const gw = await startTestGateway({ env: { DATABASE_URL: '', METRICS_TOKEN: token } });
  try {
    expect(gw.gateway.app.ctx.storage.kind).toBe('pglite');
    const m = await gw.merchant();
    for (let i = 0; i < 100; i++) {
      const res = await gw.call('POST', '/payment-requests', {
        apiKey: m.apiKey,
        body: { amount: 10, currency: 'EUR', reference: `upkeep-${i}` },
      });
      expect(res.status, res.text).toBe(200);
    }
    const tuples = async () =>
      (
        await sql<{ reltuples: number; changed: number }>`select c.reltuples, s.n_mod_since_analyze as changed
          from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'payment_requests'`.execute(
          gw.db,
        )
      ).rows[0];
    await expect
      .poll(async () => (await tuples()).changed, { timeout: 10_000, interval: 100 })
      .toBeGreaterThanOrEqual(100);

    await gw.runJobs();
    expect((await tuples()).reltuples).toBe(100);
    const lines = gw
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'embedded store upkeep',
        upkeep: expect.objectContaining({ table: 'payment_requests', analyzed: true }),
      }),
    );
    const metrics = await gw.call('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(metrics.text).toMatch(
      /^svc_store_upkeep_duration_seconds_count\{table="payment_requests",action="analyze"\} [1-9]/m,
    );
  } finally {
    await gw.close();
  }
});
