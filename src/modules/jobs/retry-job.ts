import type { DbContext } from '../../storage/db-context.js';
import { conflict, notFound } from '../../errors.js';
import { jobStatus, presentJob } from './present.js';
import { findJob, resetFailedJob, type JobScope } from './repository.js';

/**
 * Makes a failed job due now with its whole attempt budget again; the job loop runs it on its next beat.
 * Safe for every kind: handlers load their record and return early when it is already final (jobs/queue.ts).
 * Only a failed job: a pending one is still being tried, and a completed one is done.
 */
export async function retryJob(ctx: DbContext, input: { scope: JobScope; jobId: number }) {
  const reset = await resetFailedJob(ctx.db, input.scope, input.jobId, ctx.clock.now());
  if (reset) return presentJob(reset);
  const job = await findJob(ctx.db, input.scope, input.jobId);
  if (!job) throw notFound(`job ${input.jobId}`);
  const status = jobStatus(job);
  throw conflict(`Job ${input.jobId} is ${status}; only a failed job can be retried`, { status });
}
