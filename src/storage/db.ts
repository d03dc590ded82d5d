import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import { enableGroupCommit } from './group-commit.js';
import { sendMarkedAsPrepared } from './prepared.js';
import { refuseUnreplicatedCommits } from './unreplicated-commit.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface Storage {
  db: Db;
  /** Resolves when the database answers and takes writes (a primary, not read-only); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * LISTEN on `channel` (a constant identifier) on a connection of its own, outside the pool (so a
   * transaction-pooling proxy in front of the pool does not apply to it); `lost` is called once if
   * that connection fails. Resolves to the function that stops listening.
   */
  listen(channel: string, handlers: NoticeHandlers): Promise<() => Promise<void>>;
  /** The pool's connections now. */
  poolStats(): { total: number; idle: number; waiting: number };
}

export interface NoticeHandlers {
  notice(payload: string): void;
  lost(error: Error): void;
}

export interface StorageOptions {
  /** The PostgreSQL database: DATABASE_URL, or the embedded server's. */
  databaseUrl: string;
  /**
   * Where the LISTEN connection goes (DATABASE_LISTEN_URL): a session of its own, so PostgreSQL directly
   * when databaseUrl is a transaction-pooling PgBouncer, through which LISTEN hears nothing. Default: databaseUrl.
   */
  listenUrl?: string;
  poolSize?: number;
  /** Send the statements repositories mark hot as named prepared statements (src/storage/prepared.ts). */
  preparedStatements?: boolean;
  /** Group concurrent begins and settles of payments into multi-row statements (src/storage/group-commit.ts). */
  groupCommit?: boolean;
}

// int8 (ids, minor-unit amounts) arrive as numbers, not pg's strings. Values stay below 2^53 (amounts
// are capped at 999,999,999.99).
export const pgTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : (pg.types.getTypeParser(oid, format) as (value: string) => unknown),
};

/**
 * The gateway's sessions run without JIT compilation: PostgreSQL compiles a statement whose estimated cost
 * passes `jit_above_cost`, and the estimate of a statement that reads a few rows can pass it when the
 * tables' statistics say many rows might match. The delivery claim did so whenever many deliveries were
 * pending, its compiling costing far more than its work and a merchant's notifications late at peak
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
    refuseUnreplicatedCommits(client);
    if (options.preparedStatements) sendMarkedAsPrepared(client, naming);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  if (options.groupCommit) enableGroupCommit(db);
  const listenUrl = options.listenUrl ?? options.databaseUrl;
  return {
    db,
    close: () => db.destroy(),
    listen: (channel, handlers) => listenOnServer(listenUrl, channel, handlers),
    ping: async () => {
      // Reachable is not enough: after a failover, an address (DNS, a multi-host URL, a proxy whose
      // check lags) can still lead to the old primary restarted as a standby, or to a read-only one,
      // where every write would fail. Only a server that takes writes is ready.
      const { rows } = await sql<{ writable: boolean }>`
        select not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off' as writable`.execute(db);
      if (!rows[0]?.writable) throw new Error('the database server takes no writes (a standby, or read-only)');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

async function listenOnServer(
  databaseUrl: string,
  channel: string,
  handlers: NoticeHandlers,
): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'svc-gateway-listener' });
  // `lost` is for a connection that was listening: a failure while connecting (no primary answers
  // during a failover) is the rejection alone. Told both ways, the caller would try again twice per
  // failure, doubling its attempts every time until the failover ends.
  let stopped = true;
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
    stopped = false;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return async () => {
    stopped = true;
    await client.end().catch(() => {});
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
