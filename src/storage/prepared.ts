import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/**
 * Server-side prepared statements for the few hot statements of a payment (docs/performance.md,
 * "Prepared statements"). A repository marks a compiled statement with `hot(label, compiled)`; on a
 * PostgreSQL pool opened with `preparedStatements`, the connection then sends it as a named statement:
 * parsed and planned once per connection, afterwards only bound and executed. Anything else runs as
 * before.
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

/** The name a marked statement is sent under; undefined for any other text. */
export const preparedNameOf = (text: string): string | undefined => names.get(text);

type QueryFunction = (config: unknown, values?: unknown) => unknown;

/**
 * A server that does not keep a connection's prepared statements between transactions (a transaction
 * pooler, configured without DATABASE_LISTEN_URL or with DATABASE_PREPARED_STATEMENTS=true) answers
 * 26000 or 42P05; a migration that adds a column to a table a prepared `returning *` reads (another
 * instance of a rolling deploy) makes PostgreSQL answer 0A000 "cached plan must not change result
 * type". The process then stops naming statements. The refused statement itself is sent again,
 * unnamed, when it ran outside a transaction block: it failed as a transaction of its own, so nothing
 * of it happened. Inside a transaction block the refusal has aborted the caller's transaction, which
 * only the caller can run again: the error goes to it.
 */
const NOT_KEPT = new Set([
  '26000', // invalid_sql_statement_name
  '42P05', // duplicate_prepared_statement
  '0A000', // feature_not_supported: cached plan must not change result type
]);

/** Makes a pool's client send marked statements as named ones (kysely calls `query(text, values)`). */
export function sendMarkedAsPrepared(client: pg.PoolClient, naming: { on: boolean }): void {
  const query = client.query.bind(client) as QueryFunction;
  (client as unknown as { query: QueryFunction }).query = (text, values) => {
    const name = naming.on && typeof text === 'string' ? preparedNameOf(text) : undefined;
    if (name === undefined) return query(text, values);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: { code?: string }) => {
      if (error.code === undefined || !NOT_KEPT.has(error.code)) throw error;
      naming.on = false;
      // The server's own word (ReadyForQuery), not the BEGIN/COMMIT texts seen: "I" is no transaction
      // block open. pg reports the error before the ReadyForQuery that follows it, so this is still the
      // status the statement was sent in ("I" or "T"); were it the one after, it would be "I" or "E".
      if (client.getTransactionStatus() !== 'I') throw error;
      return query(text, values);
    });
  };
}
