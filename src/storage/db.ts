import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import { PGliteDialect } from './pglite-dialect.js';
import { syncStoreFiles, WAL_SYNC_START_PARAMS } from './pglite-wal-sync.js';
import { enableGroupCommit } from './group-commit.js';
import { sendMarkedAsPrepared } from './prepared.js';
import type { Database } from './schema.js';
import { upkeepOnce, type UpkeepDone } from './upkeep.js';

export type Db = Kysely<Database>;

export interface Storage {
  db: Db;
  kind: 'pglite' | 'postgres';
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * LISTEN on `channel` (a constant identifier) on a connection of its own, outside the pool (so a
   * transaction-pooling proxy in front of the pool does not apply to it); `lost` is called once if
   * that connection fails. On the embedded store notices are delivered in-process as they commit and
   * the connection cannot be lost. Resolves to the function that stops listening.
   */
  listen(channel: string, handlers: NoticeHandlers): Promise<() => Promise<void>>;
  /**
   * The embedded store only, which has no autovacuum: vacuums and/or analyzes the table most due for it
   * (src/storage/upkeep.ts); the background loop calls it.
   */
  upkeep?: () => Promise<UpkeepDone | undefined>;
  /** The PostgreSQL pool's connections now (the embedded store has no pool). */
  poolStats?(): { total: number; idle: number; waiting: number };
}

export interface NoticeHandlers {
  notice(payload: string): void;
  lost(error: Error): void;
}

export interface StorageOptions {
  /** A PostgreSQL server; when absent, embedded PostgreSQL in dataDir. */
  databaseUrl?: string;
  /**
   * Where the LISTEN connection goes (DATABASE_LISTEN_URL): a session of its own, so PostgreSQL directly
   * when databaseUrl is a transaction-pooling PgBouncer, through which LISTEN hears nothing. Default: databaseUrl.
   */
  listenUrl?: string;
  /** Directory of the embedded store; "memory://" keeps it in memory (tests). */
  dataDir: string;
  poolSize?: number;
  /** Send the statements repositories mark hot as named prepared statements (src/storage/prepared.ts). */
  preparedStatements?: boolean;
  /** Group concurrent begins and settles of payments into multi-row statements (src/storage/group-commit.ts). */
  groupCommit?: boolean;
}

export class StorageLockedError extends Error {}

// int8 (ids, minor-unit amounts) arrive as numbers from both drivers: PGlite does this already,
// pg returns strings. Values stay below 2^53 (amounts are capped at 999,999,999.99).
const pgTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : (pg.types.getTypeParser(oid, format) as (value: string) => unknown),
};

/**
 * The gateway's sessions run without JIT compilation: PostgreSQL compiles a statement whose estimated cost
 * passes `jit_above_cost`, and the estimate of a statement that reads a few rows can pass it when the
 * tables' statistics say many rows might match. The delivery claim did so in half the bench's runs: ~23 ms
 * a claim, all of it compiling, against ~1 ms, and a merchant's notifications seconds late at peak
 * (docs/performance.md, "JIT compiling the delivery claim"). Nothing the gateway runs reads enough rows for
 * compiled expressions to pay. Sent as a startup option, ahead of the URL's own `options` (which win); a
 * PgBouncer that ignores `options` leaves the server's setting (docs/scaling.md).
 */
function withoutJit(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', ['-c jit=off', url.searchParams.get('options')].filter(Boolean).join(' '));
  return url.toString();
}

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: withoutJit(options.databaseUrl),
      max: options.poolSize ?? 10,
      types: pgTypes,
      // Transaction-pooling friendly: no session state is relied on between transactions.
      application_name: 'svc-gateway',
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it. Queries report their own errors.
    });
    // A client checked out when the server goes away (an immediate shutdown, a failover) emits 'error'
    // itself; unheard, that event would end the process. The query in flight fails on its own, and the
    // broken client is discarded when released.
    const naming = { on: true };
    pool.on('connect', (client) => {
      client.on('error', () => {});
      if (options.preparedStatements) sendMarkedAsPrepared(client, naming);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const listenUrl = options.listenUrl ?? options.databaseUrl;
    const storage = await finish(
      db,
      'postgres',
      async () => db.destroy(),
      (channel, handlers) => listenOnServer(listenUrl, channel, handlers),
    );
    if (options.groupCommit) enableGroupCommit(db);
    return {
      ...storage,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }

  const inMemory = options.dataDir === 'memory://';
  const release = inMemory ? () => {} : lockDataDir(options.dataDir);
  try {
    const pgdata = path.join(options.dataDir, 'pgdata');
    if (!inMemory) createEmbeddedStoreApart(pgdata);
    const pglite = new PGlite(inMemory ? undefined : pgdata, {
      startParams: inMemory ? EMBEDDED_START_PARAMS : [...EMBEDDED_START_PARAMS, ...WAL_SYNC_START_PARAMS],
    });
    await pglite.waitReady;
    const db = new Kysely<Database>({
      dialect: new PGliteDialect(pglite, { preparedStatements: options.preparedStatements, durableCommits: !inMemory }),
    });
    if (options.groupCommit) enableGroupCommit(db);
    const storage = await finish(
      db,
      'pglite',
      async () => {
        await db.destroy();
        release();
      },
      (channel, handlers) => pglite.listen(channel, (payload) => handlers.notice(payload)),
    );
    return { ...storage, upkeep: () => upkeepOnce(db) };
  } catch (error) {
    release();
    throw error;
  }
}

async function listenOnServer(
  databaseUrl: string,
  channel: string,
  handlers: NoticeHandlers,
): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'svc-gateway-listener' });
  let stopped = false;
  const lost = (error: Error) => {
    if (stopped) return;
    stopped = true;
    handlers.lost(error);
  };
  client.on('notification', (message) => {
    if (message.channel === channel) handlers.notice(message.payload ?? '');
  });
  client.on('error', lost);
  client.on('end', () => lost(new Error('the listening connection ended')));
  try {
    await client.connect();
    await client.query(`listen ${channel}`);
  } catch (error) {
    stopped = true;
    await client.end().catch(() => {});
    throw error;
  }
  return async () => {
    stopped = true;
    await client.end().catch(() => {});
  };
}

async function finish(
  db: Db,
  kind: Storage['kind'],
  close: () => Promise<void>,
  listen: Storage['listen'],
): Promise<Storage> {
  try {
    await migrate(db);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    db,
    kind,
    close,
    listen,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
  };
}

export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const what = failed ? `migration ${failed.migrationName}` : 'migrating';
    throw new Error(`${what} failed: ${(error as Error).message ?? error}`);
  }
}

/**
 * PGlite's default shared_buffers (128 MB) is a server's cache inside the gateway's own memory; the
 * embedded store is for development and small deployments, whose working set fits in 16 MB
 * (measurements in docs/performance.md, "Idle memory"). Its ANALYZE runs on the gateway's thread
 * (src/storage/upkeep.ts): a sample of 3,000 rows instead of 30,000 makes that pause ~5 times shorter
 * (docs/performance.md, "The embedded store's upkeep"). PGlite applies start parameters to a store on disk
 * only: the in-memory one (tests) keeps its defaults.
 */
const EMBEDDED_START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...['-c', 'shared_buffers=16MB', '-c', 'default_statistics_target=10'],
];

/**
 * Creating the database (PGlite's initdb) takes ~450 MB that the process never gives back to the
 * system once freed, so a first start would idle at ~830 MB: a short-lived child process creates it.
 */
function createEmbeddedStoreApart(pgdata: string): void {
  if (existsSync(path.join(pgdata, 'PG_VERSION'))) return;
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = `const { PGlite } = require(${JSON.stringify(entry)});
const db = new PGlite(process.argv[1]);
db.waitReady.then(() => db.close()).catch((error) => { console.error(error.message); process.exit(1); });`;
  try {
    execFileSync(process.execPath, ['-e', script, pgdata], { stdio: ['ignore', 'ignore', 'pipe'] });
    // On disk before anything is committed to it.
    syncStoreFiles(pgdata);
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    throw new Error(`the embedded store in ${pgdata} could not be created: ${stderr || (error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The embedded store is a single-process database: a lock file stops a second process
 * (a running gateway and the CLI, say) from opening the same directory and corrupting it.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'gateway.lock');
  try {
    writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(lockFile, 'utf8'));
    if (holder && holder !== process.pid && processAlive(holder)) {
      throw new StorageLockedError(
        `the embedded store in ${dataDir} is in use by process ${holder}; stop it first, or use DATABASE_URL`,
      );
    }
    writeFileSync(lockFile, String(process.pid));
  }
  return () => rmSync(lockFile, { force: true });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
