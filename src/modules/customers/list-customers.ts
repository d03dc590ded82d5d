import { invalidFormat } from '../../errors.js';
import type { Db } from '../../storage/db.js';
import { findCustomers, type CustomerScope } from './repository.js';
import type { CustomerList, ListCustomersInput } from './schemas.js';

export const DEFAULT_PAGE_SIZE = 20;

/**
 * Newest first, keyset-paginated on id: a page is stable while customers are being created
 * (new ones appear before the first page, never twice or in between). The cursor is opaque.
 */
export async function listCustomers(db: Db, scope: CustomerScope, query: ListCustomersInput): Promise<CustomerList> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findCustomers(db, scope, {
    email: query.email,
    memberId: query.memberId,
    beforeId: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    // One extra row tells whether another page exists without a count query.
    limit: limit + 1,
  });
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data, hasMore, nextCursor: hasMore ? encodeCursor(data[data.length - 1].id) : null };
}

const encodeCursor = (id: number) => Buffer.from(`customer:${id}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^customer:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidFormat('cursor', cursor, 'cursor must be the nextCursor of a previous page');
  return Number(match[1]);
}
