import type { DbContext } from '../../storage/db-context.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import type { MerchantScope } from '../../lib/scope.js';
import { presentCallback } from './present.js';
import { findReceivedCallbacks } from './repository.js';
import type { ReceivedCallbacksQuery } from './schemas.js';

/** The developers area: callbacks received for this merchant and mode, with their signature verdict, newest first. */
export async function listReceivedCallbacks(
  ctx: Pick<DbContext, 'db'>,
  input: { scope: MerchantScope; query: ReceivedCallbacksQuery },
) {
  const limit = input.query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findReceivedCallbacks(ctx.db, input.scope, {
    source: input.query.source,
    beforeId: cursorPosition(input.query.cursor),
    limit: limit + 1,
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(presentCallback) };
}
