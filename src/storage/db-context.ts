import type { Clock } from '../lib/clock.js';
import { runTransaction } from './after-commit.js';
import type { Db } from './db.js';

/** The slice of a context most actions need: a db handle (or the caller's transaction) and the clock. */
export interface DbContext {
  db: Db;
  clock: Clock;
}

/**
 * Runs `work` in one transaction with the context's db replaced by it: the caller owns the transaction.
 * What `work` registers with `afterCommit` (after-commit.ts) runs once it has committed.
 */
export function inTransaction<C extends { db: Db }, T>(ctx: C, work: (trx: C) => Promise<T>): Promise<T> {
  return runTransaction(ctx.db, (db) => work({ ...ctx, db }));
}
