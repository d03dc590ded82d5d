import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { buildOnce, gatewayCli, run, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

/**
 * The default store, as `npm start` runs it without DATABASE_URL: a PostgreSQL server from the npm
 * packages on DATA_DIR (src/storage/embedded-server.ts), started and stopped with the gateway.
 */
const SLOW = { timeout: 180_000 };
const scratch: string[] = [];
const running: GatewayProcess[] = [];

beforeAll(() => buildOnce(), 120_000);
afterAll(async () => {
  for (const gateway of running) {
    if (gateway.child.exitCode === null) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
  }
  for (const dir of scratch) {
    stopLeftServer(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-embedded-'));
  scratch.push(dir);
  return dir;
}

async function start(env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({ NODE_ENV: 'development', PORT: '0', ...env });
  running.push(gateway);
  return gateway;
}

async function stop(gateway: GatewayProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  gateway.child.kill(signal);
  return gateway.exited;
}

/** The server's process id while one runs on the data directory (PostgreSQL's own lock file). */
function serverPid(dir: string): number | undefined {
  const file = path.join(dir, 'postgresql', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** pg_ctl's stop returns once the lock file is gone, a moment before the process itself has ended. */
const ended = (pid: number) => vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000, interval: 50 });

/** A test that failed half-way must not leave a server behind. */
function stopLeftServer(dir: string): void {
  const pid = serverPid(dir);
  if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

async function login(gateway: GatewayProcess, email: string, password: string): Promise<number> {
  const response = await fetch(`${gateway.banner.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  await response.text();
  return response.status;
}

describe('npm start without DATABASE_URL', () => {
  let dir: string;
  let first: GatewayProcess;

  it(
    'starts PostgreSQL on DATA_DIR, reachable from this machine only, with a password and production settings',
    SLOW,
    async () => {
      dir = dataDir();
      first = await start({ DATA_DIR: dir });
      const url = new URL(first.banner.database!);
      expect(url.hostname).toBe('127.0.0.1');
      expect(url.username).toBe('gateway');
      expect(url.password.length).toBeGreaterThanOrEqual(24);
      expect(first.stderr()).toContain(`data in ${path.join(dir, 'postgresql')}`);

      const [settings] = await query<Record<string, string>>(
        url.toString(),
        `select current_setting('fsync') as fsync, current_setting('synchronous_commit') as synchronous_commit,
        current_setting('autovacuum') as autovacuum, current_setting('listen_addresses') as listen_addresses,
        current_setting('unix_socket_directories') as sockets, current_setting('server_version_num') as version`,
      );
      expect(settings).toEqual({
        fsync: 'on',
        synchronous_commit: 'on',
        autovacuum: 'on',
        listen_addresses: '127.0.0.1',
        sockets: '',
        version: expect.stringMatching(/^18\d{4}$/),
      });
      // The password is the only way in, and it is kept for the owner of DATA_DIR alone.
      const wrong = new URL(url);
      wrong.password = 'not-the-password';
      await expect(query(wrong.toString(), 'select 1')).rejects.toMatchObject({ code: '28P01' });
      expect(statSync(path.join(dir, 'postgresql.password')).mode & 0o077).toBe(0);
      // PostgreSQL refuses to run as root: as root, it runs as an unprivileged user.
      const pid = serverPid(dir)!;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
      if (process.getuid?.() === 0) expect(uid).not.toBe(0);
      else expect(uid).toBe(process.getuid?.());
    },
  );

  it('stops its server on SIGTERM, and the next start finds the data there', SLOW, async () => {
    const demo = first.banner.demo!;
    const pid = serverPid(dir)!;
    expect(await stop(first)).toBe(0);
    await ended(pid);
    expect(serverPid(dir)).toBeUndefined();

    const second = await start({ DATA_DIR: dir });
    expect(second.banner.demo).toBeUndefined();
    expect(await login(second, demo.email, demo.password)).toBe(200);
    const secondPid = serverPid(dir)!;
    expect(await stop(second, 'SIGINT')).toBe(0);
    await ended(secondPid);
  });
});

describe('a gateway killed with SIGKILL', () => {
  it('leaves its server running, and the next start takes it over instead of starting another', SLOW, async () => {
    const dir = dataDir();
    const first = await start({ DATA_DIR: dir });
    const demo = first.banner.demo!;
    const pid = serverPid(dir)!;
    expect(await stop(first, 'SIGKILL')).toBeNull();
    expect(alive(pid)).toBe(true);

    const second = await start({ DATA_DIR: dir });
    expect(serverPid(dir)).toBe(pid);
    expect(second.banner.database).toBe(first.banner.database);
    expect(await login(second, demo.email, demo.password)).toBe(200);
    expect(await stop(second)).toBe(0);
    await ended(pid);
  });
});

describe('one data directory, one gateway', () => {
  it('refuses a second gateway on a data directory a running gateway serves, and the first goes on', SLOW, async () => {
    const dir = dataDir();
    const first = await start({ DATA_DIR: dir });
    const refused = await run(process.execPath, ['dist/src/main.js'], { PORT: '0', DATA_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is run by process ${first.child.pid}`);
    expect(refused.stderr).toContain('WORKERS');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(await login(first, first.banner.demo!.email, first.banner.demo!.password)).toBe(200);
    expect(await stop(first)).toBe(0);
  });

  it('stops the server it started when its own start fails afterwards (a taken port)', SLOW, async () => {
    const dir = dataDir();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const failed = await run(process.execPath, ['dist/src/main.js'], { PORT: String(port), DATA_DIR: dir });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('HOST/PORT');
      expect(serverPid(dir)).toBeUndefined();
    } finally {
      taken.close();
    }
  });
});

describe('DATA_DIR=memory://', () => {
  it('is a throwaway cluster in a temporary directory, removed at exit', SLOW, async () => {
    const gateway = await start({ DATA_DIR: 'memory://' });
    const pgdata = /data in (\S+), a throwaway cluster removed at exit/.exec(gateway.stderr())![1];
    expect(existsSync(path.join(pgdata, 'PG_VERSION'))).toBe(true);
    expect(await stop(gateway)).toBe(0);
    expect(existsSync(path.dirname(pgdata))).toBe(false);
  });
});

describe('a data directory of the earlier embedded store (PGlite)', () => {
  // test/fixtures/pglite-store-dump.sql: what @electric-sql/pglite-tools' pg_dump wrote of such a store,
  // made by the earlier version (a merchant, its test API key and a payment request).
  const DUMP = path.resolve('test/fixtures/pglite-store-dump.sql');
  const LEGACY = {
    email: 'legacy@shop.example',
    password: 'a long enough password',
    apiKey: 'svc_test_sk_LrzMgVrKMWnCoVY2lAtmMmDaF2ThUScojR5VH47w',
  };

  it('is refused at start with the way to carry it over, and nothing is made beside it', SLOW, async () => {
    const dir = dataDir();
    mkdirSync(path.join(dir, 'pgdata'));
    writeFileSync(path.join(dir, 'pgdata', 'PG_VERSION'), '17\n');
    const refused = await run(process.execPath, ['dist/src/main.js'], { PORT: '0', DATA_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('earlier embedded store (PGlite)');
    expect(refused.stderr).toContain('store import --file');
    expect(existsSync(path.join(dir, 'postgresql'))).toBe(false);
  });

  it('is carried over by `store import` of its dump: accounts, keys and requests answer as before', SLOW, async () => {
    const dir = dataDir();
    const imported = await gatewayCli(['store', 'import', '--file', DUMP], { DATA_DIR: dir });
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toEqual({ merchants: 1 });

    const gateway = await start({ DATA_DIR: dir });
    expect(gateway.banner.demo).toBeUndefined();
    expect(await login(gateway, LEGACY.email, LEGACY.password)).toBe(200);
    // The earlier store's API key and payment request answer through the API as before.
    const listed = await fetch(`${gateway.banner.url}/payment-requests`, { headers: { 'x-api-key': LEGACY.apiKey } });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: Array<{ reference: string; amount: number }> };
    expect(data).toMatchObject([{ reference: 'legacy-1', amount: 12.5 }]);
    // Every migration of this version has run, the earlier version's and those it had not run yet.
    const { migrations } = await migrationProvider.getMigrations().then((all) => ({ migrations: Object.keys(all) }));
    const ran = await query<{ name: string }>(
      gateway.banner.database!,
      'select name from kysely_migration order by name',
    );
    expect(ran.map((row) => row.name)).toEqual(migrations.sort());
    expect(await stop(gateway)).toBe(0);
  });

  it('is never imported over a store that holds merchants', SLOW, async () => {
    const dir = dataDir();
    const gateway = await start({ DATA_DIR: dir });
    expect(await stop(gateway)).toBe(0);
    const refused = await gatewayCli(['store', 'import', '--file', DUMP], { DATA_DIR: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds 1 merchant');
    expect(refused.stdout).toBe('');
  });
});
