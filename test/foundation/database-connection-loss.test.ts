import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { beforeAll, expect, it } from 'vitest';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { useGateway, type CallResult } from '../helpers/gateway.js';

// A PostgreSQL server that drops the gateway's connections (an immediate shutdown, a failover, an
// operator's pg_terminate_backend) while a query is running on one of them. The gateway must answer
// that request with an error and go on serving: the lost connection must not end the process. Needs
// a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
let databaseUrl: string;

// Registered before the gateway's own start hook, so the database exists when it starts.
beforeAll(async () => {
  databaseUrl = await freshPostgresDatabaseUrl();
});
const gw = useGateway(() => ({ env: { DATABASE_URL: databaseUrl } }));

// Both waits end well inside the test's time-out, so that a failure says what the gateway was doing
// rather than "timed out", and the lock is always let go (a held lock keeps the gateway's close
// waiting on the request).
const WAIT_MS = 10_000;

it('a connection lost in the middle of a query fails that request and nothing else', async () => {
  const m = await gw.merchant();
  const body = { name: 'Ada Lovelace', email: 'ada@example.com' };

  // The holder holds the customers table so that the gateway's insert waits on a checked-out
  // connection; the observer watches for that wait and then cuts the gateway's connections. Not the
  // holder: inside a transaction PostgreSQL answers pg_stat_activity from a snapshot taken at the
  // first read, which misses a connection the gateway's pool opens afterwards.
  const holder = new pg.Client({ connectionString: databaseUrl });
  const observer = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([holder.connect(), observer.connect()]);
  // Every other session of this database: the gateway's. The observer is connected to it too.
  const others = `from pg_stat_activity where datname = current_database() and pid not in (pg_backend_pid(), $1)`;
  const { rows: holderRows } = await holder.query('select pg_backend_pid() as pid');
  const keep = [holderRows[0].pid];
  const sessions = async () =>
    (
      await observer.query(
        `select application_name, state, wait_event_type, wait_event, left(query, 60) as query ${others}`,
        keep,
      )
    ).rows
      .map((row) => JSON.stringify(row))
      .join('; ');
  try {
    let waiting: Promise<CallResult> | undefined;
    try {
      await holder.query('begin; lock table customers in access exclusive mode');
      waiting = gw.call('POST', '/customers', { apiKey: m.apiKey, body });
      // Cut only once the insert waits on the lock: on a busy machine the request may take seconds to get there.
      const deadline = Date.now() + WAIT_MS;
      let blocked = false;
      while (!blocked && Date.now() < deadline) {
        const { rows } = await observer.query(
          `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
            where d.datname = current_database() and l.relation = 'customers'::regclass and not l.granted`,
        );
        blocked = rows[0].n > 0;
        if (!blocked) await sleep(50);
      }
      if (!blocked) expect.fail(`the gateway’s insert never waited on the lock; sessions: ${await sessions()}`);
      await observer.query(`select pg_terminate_backend(pid) ${others}`, keep);
    } finally {
      await holder.query('rollback');
    }

    const cut = await Promise.race([waiting, sleep(WAIT_MS, undefined, { ref: false })]);
    if (!cut) {
      const pool = JSON.stringify(gw.gateway.app.ctx.storage.poolStats?.());
      expect.fail(`the cut request was not answered; pool: ${pool}; sessions: ${await sessions()}`);
    }
    expect(cut.status).toBeGreaterThanOrEqual(500);
    expect(cut.body.error).toBe('INTERNAL_ERROR');
  } finally {
    await Promise.all([holder.end(), observer.end()]);
  }
  // Still serving, on fresh connections.
  expect((await gw.call('GET', '/readyz')).status).toBe(200);
  expect((await gw.call('POST', '/customers', { apiKey: m.apiKey, body })).status).toBe(200);
});
