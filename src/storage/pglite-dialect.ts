import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { installWalSync, type WalSync } from './pglite-wal-sync.js';
import { preparedNameOf } from './prepared.js';

/**
 * Kysely dialect over embedded PostgreSQL (PGlite).
 * PGlite is one connection, so the driver hands it out to one holder at a time:
 * a transaction keeps it until commit/rollback and other queries wait their turn.
 */
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly options: {
      preparedStatements?: boolean;
      /** The store is on disk and started with WAL_SYNC_START_PARAMS: answer only durable commits. */
      durableCommits?: boolean;
    } = {},
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(
      this.pglite,
      this.options.preparedStatements ?? false,
      this.options.durableCommits ?? false,
    );
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

/** The embedded store cannot be used any more (a trap it did not recover from); only a restart helps. */
export class EmbeddedStoreFailedError extends Error {}

class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private connection!: PGliteConnection;
  private walSync: WalSync | undefined;

  constructor(
    private readonly pglite: PGlite,
    private readonly preparedStatements: boolean,
    private readonly durableCommits: boolean,
  ) {}

  async init(): Promise<void> {
    await this.pglite.waitReady;
    if (this.durableCommits) this.walSync = installWalSync(this.pglite);
    this.connection = new PGliteConnection(
      this.pglite,
      installTrapGuard(this.pglite),
      this.preparedStatements,
      this.walSync,
    );
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.connection.release = release;
    return this.connection;
  }

  /**
   * The next holder may start at once; this holder's caller goes on only once everything committed
   * so far is on disk: nothing is answered before its commit is durable, nor from a row whose commit
   * is still being flushed, and commits that queued behind one another share one flush.
   */
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PGliteConnection).release();
    await this.walSync?.settled();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
    // COMMIT of a transaction PostgreSQL had already aborted answers "ROLLBACK" without an error;
    // a caller must never believe that committed.
    if (this.pglite.isInTransaction()) throw new Error('the embedded store did not commit the transaction');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    await this.queue;
    await this.walSync?.settled().catch(() => {});
    if (!this.pglite.closed) await this.pglite.close();
    this.walSync?.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  release: () => void = () => {};
  private failure: Error | undefined;

  private readonly statements = new Map<string, PreparedStatement>();

  constructor(
    private readonly pglite: PGlite,
    private readonly guard: TrapGuard,
    private readonly preparedStatements: boolean,
    private readonly walSync: WalSync | undefined,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    this.failure ??= this.walSync?.failure();
    if (this.failure) throw this.failure;
    const name = this.preparedStatements ? preparedNameOf(compiled.sql) : undefined;
    let result;
    try {
      result =
        name === undefined
          ? await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[])
          : await this.runPrepared<R>(name, compiled).catch((error: { code?: string }) => {
              // Forgotten (only a DEALLOCATE does that): outside a transaction nothing of it happened, so
              // it is prepared and run again, as on the server (prepared.ts); inside one, the caller decides.
              if (error.code !== '26000' || this.pglite.isInTransaction()) throw error;
              return this.runPrepared<R>(name, compiled);
            });
    } catch (error) {
      if (!this.guard.trapped()) throw error;
    }
    const trap = this.guard.take();
    if (trap) throw await this.recoverFrom(trap);
    if (!result) throw new Error('the embedded store answered neither rows nor an error');
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    };
  }

  /**
   * A hot statement (prepared.ts) as a named prepared statement: parsed, analysed and described once,
   * then only bound and executed, which in WebAssembly saves most of the statement's cost. The same
   * messages PGlite's own query() sends (bind, execute, sync; the parameters serialised by the types
   * PostgreSQL inferred), only without the parse and the two describes each time.
   */
  private async runPrepared<R>(name: string, compiled: CompiledQuery): Promise<Results<R>> {
    const { serialize } = protocol;
    const pglite = this.pglite;
    return pglite.runExclusive(async () => {
      const send = (message: Uint8Array) => pglite.execProtocolStream(message, { syncToFs: false });
      const messages: BackendMessage[] = [];
      try {
        let statement = this.statements.get(name);
        if (!statement) {
          await send(serialize.parse({ name, text: compiled.sql, types: [] }));
          const described = await send(serialize.describe({ type: 'S', name }));
          statement = {
            parameterTypes: parse.parseDescribeStatementResults(described),
            rows: described.find((m) => m.name === 'rowDescription'),
          };
          this.statements.set(name, statement);
        }
        const types = statement.parameterTypes;
        const values = compiled.parameters.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = pglite.serializers[types[i]];
          // As PGlite's query() does; every value the gateway binds has a serializer or is a primitive.
          return serializer ? serializer(value) : (value as { toString(): string }).toString();
        });
        messages.push(...(await send(serialize.bind({ statement: name, values }))));
        if (statement.rows) messages.push(statement.rows);
        messages.push(...(await send(serialize.execute({}))));
      } catch (error) {
        if ((error as { code?: string }).code === '26000') this.statements.delete(name);
        throw error;
      } finally {
        messages.push(...(await send(serialize.sync())));
      }
      await pglite.syncToFs();
      return parse.parseResults(messages, pglite.parsers)[0] as Results<R>;
    });
  }

  /**
   * After a trap PostgreSQL has run its own error recovery (see installTrapGuard), but that recovery
   * had no error to report, so this makes sure: whatever transaction was open is rolled back and a
   * probe must answer. If it does not, the store is declared failed: every later statement fails
   * loudly (and /readyz says so) instead of silently answering nothing.
   */
  private async recoverFrom(trap: unknown): Promise<Error> {
    const reason = (trap as Error)?.message ?? String(trap);
    const error = new Error(`the embedded store could not run the statement (${reason}); it was rolled back`);
    try {
      if (this.pglite.isInTransaction()) await this.pglite.query('rollback');
      const probe = await this.pglite.query<{ ok: number }>('select 1 as ok');
      if (!this.guard.take() && probe.rows[0]?.ok === 1 && !this.pglite.isInTransaction()) return error;
    } catch {
      // falls through: not recovered
    }
    this.failure = new EmbeddedStoreFailedError(
      `the embedded store stopped working after: ${reason}; restart the gateway`,
    );
    return this.failure;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded store');
  }
}

interface PreparedStatement {
  parameterTypes: number[];
  /** The columns of its rows; none for a statement that returns none. */
  rows: BackendMessage | undefined;
}

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface TrapGuard {
  /** Whether the statement under way trapped. */
  trapped(): boolean;
  /** The trap of the statement under way, if any, and forget it. */
  take(): unknown;
}

/** What PGlite's wasm module exposes of PostgreSQL's main loop (not part of its typed API). */
interface PostgresLoop {
  _PostgresMainLoopOnce: () => void;
}

/**
 * Installed once PGlite is ready (its module exists then). Why this exists: PostgreSQL in WebAssembly runs its recursive parsers (JSON, expressions) on the
 * JavaScript engine's stack, which runs out (RangeError) long before PostgreSQL's own max_stack_depth
 * check fires. PGlite 0.5 catches that exception and carries on as if the statement had succeeded:
 * no rows, no error, and the backend left mid-statement, so the next COMMIT fails with
 * "CommitTransactionCommand: unexpected state DEFAULT" and every write after it fails until a restart.
 *
 * The guard wraps the loop PGlite calls per protocol message: an exception that is not PostgreSQL's
 * own ERROR unwind (status POSTGRES_MAIN_LONGJMP) is recorded and handed back to PGlite as that
 * unwind, so PostgreSQL runs its normal error recovery (abort the statement and transaction) and the
 * connection sees the statement fail.
 */
function installTrapGuard(pglite: PGlite): TrapGuard {
  let trap: unknown;
  const take = () => {
    const taken = trap;
    trap = undefined;
    return taken;
  };
  const unwindStatus = (pglite as unknown as { POSTGRES_MAIN_LONGJMP?: number }).POSTGRES_MAIN_LONGJMP ?? 100;
  const mod = (pglite as unknown as { mod?: PostgresLoop }).mod;
  // A PGlite without this loop (another major version) is used unguarded; test/foundation/pglite-recovery.test.ts says so.
  if (typeof mod?._PostgresMainLoopOnce === 'function') {
    const loopOnce = mod._PostgresMainLoopOnce;
    mod._PostgresMainLoopOnce = () => {
      try {
        loopOnce();
      } catch (error) {
        if ((error as { status?: unknown })?.status === unwindStatus) throw error;
        trap ??= error;
        throw Object.assign(new Error('trapped statement'), { status: unwindStatus });
      }
    };
  }
  return { trapped: () => trap !== undefined, take };
}
