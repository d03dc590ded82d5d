import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import type { Db } from '../../storage/db.js';
import { listPaymentRequests, type MerchantScope, type PaymentRequestFilter } from './repository.js';
import type { ListPaymentRequestsQuery } from './schemas.js';

/** A page of the merchant's payment requests, newest first (src/lib/pagination.ts). */
export async function listPaymentRequestPage(db: Db, now: Date, scope: MerchantScope, query: ListPaymentRequestsQuery) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const filter: PaymentRequestFilter = {
    beforeId: cursorPosition(query.cursor),
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
  };
  return toPage(await listPaymentRequests(db, scope, filter, limit + 1, now), limit);
}
