/**
 * The jobs module: the job queue (jobs/queue.ts) as people see it. Failed jobs listed and retried (the
 * panel for a merchant's own, the CLI for every one) and completed jobs deleted after their retention.
 */
import type { JobsContext } from './context.js';
import type { Sweep } from '../../jobs/queue.js';
import { purgeSweep } from './purge-completed-jobs.js';

export { jobRoutes as routes } from './routes.js';
export { listFailedJobs } from './list-failed-jobs.js';
export { retryJob } from './retry-job.js';
export type { JobScope } from './repository.js';

/** The background side: the purge of completed jobs past the retention. */
export const sweeps = (ctx: Pick<JobsContext, 'db' | 'clock' | 'config'>): Sweep[] => [purgeSweep(ctx)];
export type { JobsContext } from './context.js';
