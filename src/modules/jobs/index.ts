/**
 * The jobs module: the job queue (jobs/queue.ts) as people see it. Completed jobs are deleted after
 * their retention.
 */
import type { AppContext } from '../../context.js';
import type { Sweep } from '../../jobs/queue.js';
import { purgeSweep } from './purge-completed-jobs.js';

/** The background side: the purge of completed jobs past the retention. */
export const sweeps = (ctx: Pick<AppContext, 'db' | 'clock' | 'config'>): Sweep[] => [purgeSweep(ctx)];
