import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { installWalSync, type WalSync } from './pglite-wal-sync.js';

/**
 * What the embedded store's Kysely driver needs of PGlite (pglite-dialect.ts): one statement at a time,
 * and what it must know around a transaction. Either in the gateway's own thread (`PGliteStatements`)
 * or across a worker thread (pglite-thread.ts), which runs a `PGliteStatements` of its own.
 */
export interface StatementRunner {
  /** One statement; `prepared` names it as a hot statement (prepared.ts), which is then sent as a named one. */
  run<R>(sql: string, parameters: readonly unknown[], prepared?: string): Promise<StatementResult<R>>;
  /** Whether a transaction block was open after the last statement run. */
  inTransaction(): boolean;
  /** Resolves once everything committed so far is on disk (at once on a store in memory). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface StatementResult<R> {
  rows: R[];
  affectedRows?: number;
}

/** The embedded store cannot be used any more (a trap it did not recover from); only a restart helps. */
export class EmbeddedStoreFailedError extends Error {}

/** Runs statements on a PGlite in this thread: prepared statements, the trap guard, durable commits. */
export class PGliteStatements implements StatementRunner {
  private failure: Error | undefined;
  private readonly statements = new Map<string, PreparedStatement>();
  private readonly guard: TrapGuard;
  private readonly walSync: WalSync | undefined;

  /** `pglite` must be ready; `durableCommits`: it is on disk, started with WAL_SYNC_START_PARAMS. */
  constructor(
    private readonly pglite: PGlite,
    options: { durableCommits?: boolean } = {},
  ) {
    this.walSync = options.durableCommits ? installWalSync(pglite) : undefined;
    this.guard = installTrapGuard(pglite);
  }

  inTransaction(): boolean {
    return this.pglite.isInTransaction();
  }

  async settled(): Promise<void> {
    await this.walSync?.settled();
  }

  async close(): Promise<void> {
    await this.walSync?.settled().catch(() => {});
    if (!this.pglite.closed) await this.pglite.close();
  }

  async run<R>(sql: string, parameters: readonly unknown[], prepared?: string): Promise<StatementResult<R>> {
    this.failure ??= this.walSync?.failure();
    if (this.failure) throw this.failure;
    let result;
    try {
      result =
        prepared === undefined
          ? await this.pglite.query<R>(sql, parameters as unknown[])
          : await this.runPrepared<R>(prepared, sql, parameters).catch((error: { code?: string }) => {
              // Forgotten (only a DEALLOCATE does that): outside a transaction nothing of it happened, so
              // it is prepared and run again, as on the server (prepared.ts); inside one, the caller decides.
              if (error.code !== '26000' || this.pglite.isInTransaction()) throw error;
              return this.runPrepared<R>(prepared, sql, parameters);
            });
    } catch (error) {
      if (!this.guard.trapped()) throw error;
    }
    const trap = this.guard.take();
    if (trap) throw await this.recoverFrom(trap);
    if (!result) throw new Error('the embedded store answered neither rows nor an error');
    return { rows: result.rows, affectedRows: result.affectedRows };
  }

  /**
   * A hot statement (prepared.ts) as a named prepared statement: parsed, analysed and described once,
   * then only bound and executed, which in WebAssembly saves most of the statement's cost. The same
   * messages PGlite's own query() sends (bind, execute, sync; the parameters serialised by the types
   * PostgreSQL inferred), only without the parse and the two describes each time.
   */
  private async runPrepared<R>(name: string, sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    const { serialize } = protocol;
    const pglite = this.pglite;
    return pglite.runExclusive(async () => {
      const send = (message: Uint8Array) => pglite.execProtocolStream(message, { syncToFs: false });
      const messages: BackendMessage[] = [];
      try {
        let statement = this.statements.get(name);
        if (!statement) {
          await send(serialize.parse({ name, text: sql, types: [] }));
          const described = await send(serialize.describe({ type: 'S', name }));
          statement = {
            parameterTypes: parse.parseDescribeStatementResults(described),
            rows: described.find((m) => m.name === 'rowDescription'),
          };
          this.statements.set(name, statement);
        }
        const types = statement.parameterTypes;
        const values = parameters.map((value, i) => {
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
