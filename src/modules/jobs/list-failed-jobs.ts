import type { DbContext } from '../../storage/db-context.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { presentJob } from './present.js';
import { findFailedJobs, type JobScope } from './repository.js';

/** Jobs that spent their attempts, newest first, a page at a time: they wait for someone to retry them. */
export async function listFailedJobs(
  ctx: Pick<DbContext, 'db'>,
  input: { scope: JobScope; limit?: number; cursor?: string },
) {
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findFailedJobs(ctx.db, input.scope, cursorPosition(input.cursor), limit + 1);
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(presentJob) };
}
