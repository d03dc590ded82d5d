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
import type { StatementRunner } from './pglite-statements.js';
import { preparedNameOf } from './prepared.js';

/**
 * Kysely dialect over embedded PostgreSQL (PGlite), through a StatementRunner (pglite-statements.ts):
 * PGlite in this thread, or in a worker thread of its own (pglite-thread.ts).
 * PGlite is one connection, so the driver hands it out to one holder at a time:
 * a transaction keeps it until commit/rollback and other queries wait their turn.
 */
export class PGliteDialect implements Dialect {
  /** `open` is called once, when the first statement is about to run. */
  constructor(
    private readonly open: () => Promise<StatementRunner>,
    private readonly options: { preparedStatements?: boolean } = {},
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.open, this.options.preparedStatements ?? false);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private runner!: StatementRunner;
  private connection!: PGliteConnection;

  constructor(
    private readonly open: () => Promise<StatementRunner>,
    private readonly preparedStatements: boolean,
  ) {}

  async init(): Promise<void> {
    this.runner = await this.open();
    this.connection = new PGliteConnection(this.runner, this.preparedStatements);
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
    await this.runner.settled();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
    // COMMIT of a transaction PostgreSQL had already aborted answers "ROLLBACK" without an error;
    // a caller must never believe that committed.
    if (this.runner.inTransaction()) throw new Error('the embedded store did not commit the transaction');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    await this.queue;
    await this.runner.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  release: () => void = () => {};

  constructor(
    private readonly runner: StatementRunner,
    private readonly preparedStatements: boolean,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const name = this.preparedStatements ? preparedNameOf(compiled.sql) : undefined;
    const { rows, affectedRows } = await this.runner.run<R>(compiled.sql, compiled.parameters, name);
    return { rows, numAffectedRows: affectedRows === undefined ? undefined : BigInt(affectedRows) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded store');
  }
}
