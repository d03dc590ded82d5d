import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';

/** How long the oldest due job and the oldest due notification attempt have waited past their time. */
export async function queueLag(db: Db, now: Date): Promise<{ jobs: Date | null; deliveries: Date | null }> {
  const [jobs, deliveries] = await Promise.all([
    db
      .selectFrom('jobs')
      .select(sql<Date | null>`min(run_at)`.as('oldest'))
      .where('completed_at', 'is', null)
      .where('failed_at', 'is', null)
      .where('run_at', '<=', now)
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries')
      .select(sql<Date | null>`min(next_attempt_at)`.as('oldest'))
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .executeTakeFirst(),
  ]);
  return { jobs: jobs?.oldest ?? null, deliveries: deliveries?.oldest ?? null };
}
