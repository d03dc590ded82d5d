import { invalidFormat } from '../../errors.js';
import type { Db } from '../../storage/db.js';
import { listPaymentRequests, type MerchantScope, type PaymentRequestFilter } from './repository.js';
import type { ListPaymentRequestsQuery } from './schemas.js';
import type { PaymentRequestRow } from './present.js';

/**
 * Cursor pagination, newest first. The cursor is opaque to clients: it encodes the last id
 * of the page, so pages stay stable while new requests are created.
 */
const encodeCursor = (lastId: number) => Buffer.from(JSON.stringify({ v: 1, before: lastId })).toString('base64url');

function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; before?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.before) && (parsed.before as number) > 0) return parsed.before as number;
  } catch {
    // fall through: not a cursor this API issued
  }
  throw invalidFormat('cursor', cursor, 'cursor must be the nextCursor of a previous page');
}

export interface PaymentRequestPage {
  rows: PaymentRequestRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

export async function listPaymentRequestPage(db: Db, now: Date, scope: MerchantScope, query: ListPaymentRequestsQuery): Promise<PaymentRequestPage> {
  const filter: PaymentRequestFilter = {
    beforeId: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    status: query.status,
    reference: query.reference,
    customerId: query.customerId,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
  };
  // One extra row tells whether another page exists without a count query.
  const rows = await listPaymentRequests(db, scope, filter, query.limit + 1, now);
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  return { rows: page, hasMore, nextCursor: hasMore ? encodeCursor(page[page.length - 1].id) : null };
}
