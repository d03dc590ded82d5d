import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/db.js';
import { runTransaction } from '../../src/storage/after-commit.js';
import { hot } from '../../src/storage/prepared.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { useGateway } from '../helpers/gateway.js';

// What a database failover leaves behind, on the suite's server directly: the address the gateway
// reaches can lead, for a while, to a server that no longer takes writes (the old primary restarted
// as a standby, a replica a DNS name still points at), where the gateway must not call itself ready;
// and a commit synchronous replication did not confirm must not count as one.
let databaseUrl: string;
let admin: pg.Client;

beforeAll(async () => {
  databaseUrl = await freshPostgresDatabaseUrl();
  admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
});
const gw = useGateway(() => ({ env: { DATABASE_URL: databaseUrl } }));

const database = () => new URL(databaseUrl).pathname.slice(1);
/** The gateway's sessions on this database end; its next ones see the database's new settings. */
const cutGatewaySessions = () =>
  admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );

it('says not ready while the server it reaches takes no writes, and ready again once it does', async () => {
  expect((await gw.call('GET', '/readyz')).status).toBe(200);
  // A read-only server, as a standby is: every new session of the database starts read-only.
  await admin.query(`alter database ${database()} set default_transaction_read_only = on`);
  try {
    await cutGatewaySessions();
    // The first call may meet a connection cut under it; either way it is not ready, nor is the next.
    expect((await gw.call('GET', '/readyz')).status).toBe(503);
    const res = await gw.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await admin.query(`alter database ${database()} reset default_transaction_read_only`);
  }
  await cutGatewaySessions();
  await gw.call('GET', '/readyz');
  expect((await gw.call('GET', '/readyz')).status).toBe(200);
});

// PostgreSQL answers a COMMIT whose wait for the synchronous standby was cancelled as done, with only
// a warning: the transaction may be missing from the standby promoted next. The suite's server has no
// standby, so the warning is raised the way PostgreSQL raises it, at COMMIT, by a deferred trigger.
it('refuses a commit answered with the warning that it may not have been replicated', async () => {
  const storage = await openStorage({ databaseUrl });
  try {
    await sql`create table replicated_probe (id int)`.execute(storage.db);
    await sql`create function replicated_probe_warn() returns trigger language plpgsql as $$
      begin
        raise warning 'canceling wait for synchronous replication due to user request'
          using detail = 'The transaction has already committed locally, but might not have been replicated to the standby.';
        return null;
      end $$`.execute(storage.db);
    await sql`create constraint trigger replicated_probe_at_commit after insert on replicated_probe
      deferrable initially deferred for each row execute function replicated_probe_warn()`.execute(storage.db);

    const effects: string[] = [];
    const committing = runTransaction(storage.db, async (trx) => {
      await sql`insert into replicated_probe values (1)`.execute(trx);
      return 'committed';
    }).then(() => effects.push('answered as committed'));
    await expect(committing).rejects.toThrow(/not confirmed by a synchronous standby/);
    expect(effects).toEqual([]);
    // A statement that commits on its own (outside a transaction block) is refused the same way.
    await expect(sql`insert into replicated_probe values (2)`.execute(storage.db)).rejects.toThrow(
      /not confirmed by a synchronous standby/,
    );
    // The connection serves the next statement as usual.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from replicated_probe`.execute(storage.db);
    expect(rows[0].n).toBe(2);
  } finally {
    await storage.close();
  }
});

// Named prepared statements live in one server session: after a failover every connection is new, and
// the statements must be prepared again there, not assumed (the pool drops the connections that broke).
it('prepares its hot statements again on the connections that replace lost ones', async () => {
  const storage = await openStorage({ databaseUrl, poolSize: 1, preparedStatements: true });
  // A text of its own: statements are named by their text, once per process (prepared.ts).
  const next = (n: number) =>
    storage.db.executeQuery(
      hot('failover_probe', sql<{ next: number }>`select ${n}::int + 1 as next /* failover */`.compile(storage.db)),
    );
  const named = async () =>
    (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(storage.db)).rows.map((r) => r.name);
  try {
    expect((await next(1)).rows).toEqual([{ next: 2 }]);
    expect(await named()).toContainEqual(expect.stringMatching(/^failover_probe_/));
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.db);
    await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
    // The lost connection fails at most the one statement that meets it; the next runs on a new one.
    const answers = [];
    for (let i = 0; i < 3 && answers.length === 0; i++) {
      const result = await next(2).catch(() => undefined);
      if (result) answers.push(result.rows);
    }
    expect(answers).toEqual([[{ next: 3 }]]);
    const { rows: now } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.db);
    expect(now[0].pid).not.toBe(rows[0].pid);
    expect(await named()).toContainEqual(expect.stringMatching(/^failover_probe_/));
  } finally {
    await storage.close();
  }
});
