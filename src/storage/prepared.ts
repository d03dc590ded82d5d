import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/**
 * Server-side prepared statements for the few hot statements of a payment (docs/performance.md,
 * "Prepared statements"). A repository marks a compiled statement with `hot(label, compiled)`; on a
 * PostgreSQL pool opened with `preparedStatements`, the connection then sends it as a named statement:
 * parsed and planned once per connection, afterwards only bound and executed. Anything else, and every
 * statement on the embedded store, runs as before.
 *
 * Off behind a transaction-pooling proxy (PgBouncer before 1.21): a statement prepared on one server
 * connection is unknown on the next one the proxy hands out.
 */
const names = new Map<string, string>();

/** Distinct statement texts named at most: a builder whose text varied per call must not fill the server's memory. */
const MAX_NAMED = 64;

export function hot<R>(label: string, compiled: CompiledQuery<R>): CompiledQuery<R> {
  if (!names.has(compiled.sql) && names.size < MAX_NAMED) names.set(compiled.sql, `${label}_${names.size}`);
  return compiled;
}

type QueryFunction = (config: unknown, values?: unknown) => unknown;

/** Makes a pool's client send marked statements as named ones (kysely calls `query(text, values)`). */
export function sendMarkedAsPrepared(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFunction;
  (client as unknown as { query: QueryFunction }).query = (text, values) => {
    const name = typeof text === 'string' ? names.get(text) : undefined;
    return name === undefined ? query(text, values) : query({ name, text, values });
  };
}
