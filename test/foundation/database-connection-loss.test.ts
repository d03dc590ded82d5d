import pg from 'pg';
import { beforeAll, expect, it } from 'vitest';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { useGateway } from '../helpers/gateway.js';

// A PostgreSQL server that drops the gateway's connections (an immediate shutdown, a failover, an
// operator's pg_terminate_backend) while a query is running on one of them. The gateway must answer
// that request with an error and go on serving: the lost connection must not end the process. Needs
// a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
let databaseUrl: string;
let database: string;

// Registered before the gateway's own start hook, so the database exists when it starts.
beforeAll(async () => {
  databaseUrl = await freshPostgresDatabaseUrl();
  database = new URL(databaseUrl).pathname.slice(1);
});
const gw = useGateway(() => ({ env: { DATABASE_URL: databaseUrl } }));

it('a connection lost in the middle of a query fails that request and nothing else', async () => {
  const m = await gw.merchant();
  const body = { name: 'Ada Lovelace', email: 'ada@example.com' };

  // Hold the customers table so the gateway's insert waits on a checked-out connection, then cut it.
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  await holder.query('begin; lock table customers in access exclusive mode');
  const waiting = gw.call('POST', '/customers', { apiKey: m.apiKey, body });
  // Cut only once the insert is waiting on the lock: on a busy machine the request may take seconds to get there.
  let blocked = false;
  for (let i = 0; i < 600 && !blocked; i++) {
    const { rows } = await holder.query(
      `select count(*)::int as n from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'`,
      [database],
    );
    blocked = rows[0].n > 0;
    if (!blocked) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(blocked, 'the gateway’s insert never waited on the held lock').toBe(true);
  await holder.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  await holder.query('rollback');
  await holder.end();

  const cut = await waiting;
  expect(cut.status).toBeGreaterThanOrEqual(500);
  expect(cut.body.error).toBe('INTERNAL_ERROR');
  // Still serving, on fresh connections.
  expect((await gw.call('GET', '/readyz')).status).toBe(200);
  expect((await gw.call('POST', '/customers', { apiKey: m.apiKey, body })).status).toBe(200);
});
