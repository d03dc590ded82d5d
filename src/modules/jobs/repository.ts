import type { Db } from '../../storage/db.js';

/** Whose jobs: one merchant's (the panel), or every job, those of no merchant included (the operator's CLI). */
export type JobScope = { merchantId: number } | 'all';

const JOB_COLUMNS = [
  'id',
  'kind',
  'merchant_id',
  'payload',
  'attempts',
  'max_attempts',
  'run_at',
  'last_error',
  'completed_at',
  'failed_at',
  'created_at',
] as const;

export type JobRow = NonNullable<Awaited<ReturnType<typeof findJob>>>;

/** The scope's failed jobs below `before` (keyset), newest first. */
export async function findFailedJobs(db: Db, scope: JobScope, before: number | undefined, limit: number) {
  let query = db.selectFrom('jobs').select(JOB_COLUMNS).where('failed_at', 'is not', null);
  if (scope !== 'all') query = query.where('merchant_id', '=', scope.merchantId);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function findJob(db: Db, scope: JobScope, jobId: number) {
  let query = db.selectFrom('jobs').select(JOB_COLUMNS).where('id', '=', jobId);
  if (scope !== 'all') query = query.where('merchant_id', '=', scope.merchantId);
  return query.executeTakeFirst();
}

/**
 * A failed job made due again with its whole attempt budget. A conditional update: of two retries at once
 * one resets it, the other finds it pending. Undefined when the scope has no such failed job.
 */
export async function resetFailedJob(db: Db, scope: JobScope, jobId: number, now: Date) {
  let query = db
    .updateTable('jobs')
    .set({ attempts: 0, failed_at: null, locked_until: null, run_at: now })
    .where('id', '=', jobId)
    .where('failed_at', 'is not', null);
  if (scope !== 'all') query = query.where('merchant_id', '=', scope.merchantId);
  return query.returning(JOB_COLUMNS).executeTakeFirst();
}

/**
 * Up to `batch` jobs completed before `cutoff`, oldest first (the `jobs_completed` index), deleted. Rows
 * another instance's purge is deleting are skipped, not waited for.
 */
export async function deleteCompletedJobs(db: Db, cutoff: Date, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('jobs')
        .select('id')
        .where('completed_at', '<', cutoff)
        .orderBy('completed_at')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
