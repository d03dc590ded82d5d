import type { Db } from '../../storage/db.js';

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
