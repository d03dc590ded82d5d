import type pg from 'pg';

/**
 * A commit that synchronous replication did not confirm is not a success. PostgreSQL waits at COMMIT
 * until a synchronous standby has the transaction; when that wait is cancelled (a statement_timeout, an
 * operator's pg_cancel_backend), it answers the COMMIT as done with only a WARNING: the transaction
 * committed locally and may be missing from the standby a failover promotes next. The gateway would
 * then have answered a payment that the new primary does not have. Such an answer is turned into an
 * error here, for the statement it came with (a COMMIT, or a statement that committed on its own): the
 * caller answers with a retryable error, and the retry with the same idempotency key finds out what
 * the primary it then reaches holds.
 *
 * Recognised by its message (the server's lc_messages must be English, PostgreSQL's default): the
 * warning has no SQLSTATE of its own.
 */
const UNREPLICATED = /canceling wait for synchronous replication|might not have been replicated/;

export class UnreplicatedCommitError extends Error {
  constructor(notice: string) {
    super(`the commit was not confirmed by a synchronous standby (${notice}); it may be lost in a failover`);
  }
}

type QueryFunction = (...args: unknown[]) => unknown;

/** Makes a pool's client reject a statement whose answer carried the unreplicated-commit warning. */
export function refuseUnreplicatedCommits(client: pg.PoolClient): void {
  let warned: string | undefined;
  client.on('notice', (notice) => {
    if (UNREPLICATED.test(`${notice.message ?? ''} ${(notice as { detail?: string }).detail ?? ''}`))
      warned = notice.message ?? 'unreplicated commit';
  });
  const query = client.query.bind(client) as QueryFunction;
  (client as unknown as { query: QueryFunction }).query = (...args) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    return result.then(
      (value: unknown) => {
        const notice = warned;
        warned = undefined;
        if (notice !== undefined) throw new UnreplicatedCommitError(notice);
        return value;
      },
      (error: unknown) => {
        warned = undefined;
        throw error;
      },
    );
  };
}
