import type { DbContext } from '../../storage/db-context.js';
import type { Sweep } from '../../jobs/queue.js';
import { deleteExpiredKeys } from './repository.js';

/** How often the purge looks for expired keys; while it finds some it runs again on the loop's next beat. */
const PURGE_EVERY_MS = 60_000;
/** Keys deleted per statement: short statements, each holding few row locks. */
const PURGE_BATCH = 500;

/**
 * Expired keys of every merchant are deleted on a schedule, so a stored answer (and its request's
 * fingerprint) outlives its 24 hours by about a minute, also for a merchant who sends nothing more.
 */
export function purgeSweep(ctx: DbContext): Sweep {
  return { everyMs: PURGE_EVERY_MS, run: () => deleteExpiredKeys(ctx.db, ctx.clock.now(), PURGE_BATCH) };
}
