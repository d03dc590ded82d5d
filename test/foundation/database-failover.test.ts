import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { useGateway } from '../helpers/gateway.js';

// What a database failover leaves behind, on the suite's server directly: the address the gateway
// reaches can lead, for a while, to a server that no longer takes writes (the old primary restarted
// as a standby, a replica a DNS name still points at). The gateway must not call itself ready there.
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
