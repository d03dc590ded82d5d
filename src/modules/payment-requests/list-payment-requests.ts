import type { DbContext } from '../../context.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { listPaymentRequests, type MerchantScope, type PaymentRequestFilter } from './repository.js';
import type { ListPaymentRequestsQuery } from './schemas.js';

/** A page of the merchant's payment requests, newest first (src/lib/pagination.ts). */
export async function listPaymentRequestPage(
  ctx: DbContext,
  input: { scope: MerchantScope; query: ListPaymentRequestsQuery },
) {
  const { query } = input;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const filter: PaymentRequestFilter = {
    beforeId: cursorPosition(query.cursor),
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
  };
  return toPage(await listPaymentRequests(ctx.db, input.scope, filter, limit + 1, ctx.clock.now()), limit);
}
