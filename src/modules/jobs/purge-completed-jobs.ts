import type { JobsContext } from './context.js';
import type { Sweep } from '../../jobs/queue.js';
import { deleteCompletedJobs } from './repository.js';

/** How often the purge looks for completed jobs past the retention; while it finds some it runs on the loop's next beat. */
const PURGE_EVERY_MS = 60_000;
/** Jobs deleted per statement: short statements, each holding few row locks. */
const PURGE_BATCH = 500;

/**
 * Completed jobs are deleted JOB_RETENTION_DAYS after they completed: kept that long to answer "did it
 * run, and when" (a capture, a notice), then they are only weight on the queue's table and its indexes.
 * Failed jobs are not touched: each is work the gateway owes until someone retries it.
 */
export function purgeSweep(ctx: Pick<JobsContext, 'db' | 'clock' | 'config'>): Sweep {
  const retentionMs = ctx.config.jobRetentionDays * 24 * 3600 * 1000;
  return {
    everyMs: PURGE_EVERY_MS,
    run: () => deleteCompletedJobs(ctx.db, new Date(ctx.clock.now().getTime() - retentionMs), PURGE_BATCH),
  };
}
