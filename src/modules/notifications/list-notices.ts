import type { DbContext } from '../../storage/db-context.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { findNotices } from './repository.js';
import type { ListNoticesInput } from './schemas.js';

/** E-mail notices sent to the merchant's users, newest first (both modes: they go to the same people). */
export async function listNotices(ctx: DbContext, input: { merchantId: number; query: ListNoticesInput }) {
  const limit = input.query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findNotices(ctx.db, input.merchantId, {
    beforeId: cursorPosition(input.query.cursor),
    limit: limit + 1,
  });
  const page = toPage(rows, limit);
  return {
    ...page,
    data: page.data.map((n) => ({
      at: new Date(n.at).toISOString(),
      to: n.to,
      subject: n.subject,
      kind: n.kind,
      sentAt: n.sent_at && new Date(n.sent_at).toISOString(),
    })),
  };
}
