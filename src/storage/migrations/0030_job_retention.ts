import { sql, type Kysely } from 'kysely';

/**
 * The job queue's retention and its failed jobs (docs/decisions.md "Jobs: the queue stays our own"):
 * - `jobs_completed`: the retention sweep deletes completed jobs oldest first, a batch at a time; without
 *   an index each pass would read every job kept. A completion already rewrites the row's index entries
 *   (`completed_at` is in `jobs_due`'s predicate), so this adds one B-tree insert to it, and none to a claim.
 * - `jobs_failed`: a merchant's failed jobs, newest first, for the panel; failed jobs are few.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index jobs_completed on jobs (completed_at) where completed_at is not null`.execute(db);
  await sql`create index jobs_failed on jobs (merchant_id, id) where failed_at is not null`.execute(db);
}
