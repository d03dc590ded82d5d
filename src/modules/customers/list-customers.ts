import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import { findCustomer, findCustomers, type CustomerScope } from './repository.js';
import type { CustomerList, ListCustomersInput } from './schemas.js';

/** A page of the merchant's customers, newest first (src/lib/pagination.ts). */
export async function listCustomers(
  ctx: Pick<DbContext, 'db'>,
  input: { scope: CustomerScope; query: ListCustomersInput },
): Promise<CustomerList> {
  const { query } = input;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findCustomers(ctx.db, input.scope, {
    email: query.email,
    memberId: query.memberId,
    beforeId: cursorPosition(query.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit);
}

/** One customer, or 404 when it is missing, another merchant's or the other mode's. */
export async function getCustomer(ctx: Pick<DbContext, 'db'>, input: { scope: CustomerScope; id: number }) {
  const customer = await findCustomer(ctx.db, input.scope, input.id);
  if (!customer) throw notFound('customer');
  return customer;
}
