import type { DbContext } from '../../storage/db-context.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import type { AuditAction } from './actions.js';
import { findAuditEntries } from './repository.js';

/** The merchant's audit log, newest first, a page at a time. */
export async function listAudit(
  ctx: Pick<DbContext, 'db'>,
  input: { merchantId: number; limit?: number; cursor?: string },
) {
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findAuditEntries(ctx.db, input.merchantId, cursorPosition(input.cursor), limit + 1);
  const page = toPage(rows, limit);
  return {
    ...page,
    data: page.data.map((row) => ({
      // Written only by recordAudit, whose entries carry an AuditAction.
      action: row.action as AuditAction,
      target: row.target,
      mode: row.livemode === null ? null : row.livemode ? ('live' as const) : ('test' as const),
      by: row.email,
      requestId: row.request_id,
      at: row.at.toISOString(),
    })),
  };
}
