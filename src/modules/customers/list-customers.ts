import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import type { Db } from '../../storage/db.js';
import { findCustomers, type CustomerScope } from './repository.js';
import type { CustomerList, ListCustomersInput } from './schemas.js';

/** A page of the merchant's customers, newest first (src/lib/pagination.ts). */
export async function listCustomers(db: Db, scope: CustomerScope, query: ListCustomersInput): Promise<CustomerList> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findCustomers(db, scope, {
    email: query.email,
    memberId: query.memberId,
    beforeId: cursorPosition(query.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit);
}
