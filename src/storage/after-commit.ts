import type { Db } from './db.js';

/**
 * Effects that must wait until what a statement wrote has committed, and must not happen at all if it
 * rolls back (counting a payment's new status, say). Kysely has no commit hook: a transaction opened
 * with `runTransaction` (db-context.ts `inTransaction` is one) collects the effects registered on it and
 * runs them once its COMMIT has answered.
 */
const effectsOf = new WeakMap<Db, Array<() => void>>();

/** Told of an effect that threw; the application sets one that logs (app.ts). */
let reportEffectFailure: (error: unknown) => void = (error) => process.emitWarning(String(error));

export function onEffectFailure(report: (error: unknown) => void): void {
  reportEffectFailure = report;
}

/**
 * `db.transaction().execute(work)`, then the effects `work` registered with `afterCommit`. An effect
 * that throws is reported and the rest still run: the work has committed, and its caller must answer
 * with what was committed, never an error a retry would take as "nothing happened".
 */
export async function runTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  const effects: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => {
    effectsOf.set(trx, effects);
    return work(trx);
  });
  for (const effect of effects) runEffect(effect);
  return result;
}

function runEffect(effect: () => void): void {
  try {
    effect();
  } catch (error) {
    reportEffectFailure(error);
  }
}

/**
 * Runs `effect` once what was written through `db` has committed: at once on a handle outside a
 * transaction (each statement there commits on its own, so the caller's statement already has), after
 * the COMMIT of a transaction, never for one rolled back. A transaction opened without `runTransaction`
 * could not keep that promise, so it is refused.
 */
export function afterCommit(db: Db, effect: () => void): void {
  if (!db.isTransaction) return runEffect(effect);
  const effects = effectsOf.get(db);
  if (!effects) throw new Error('afterCommit: open the transaction with runTransaction (storage/after-commit.ts)');
  effects.push(effect);
}
