import { Type, type TSchema } from '@sinclair/typebox';
import { invalidFormat } from '../errors.js';
import { nullable } from './schema.js';

/**
 * Keyset pagination, newest first, shared by every list: a page is the rows with an id below the
 * cursor, so pages stay stable while new rows are created (they appear before the first page,
 * never twice or in between). The cursor is opaque to clients: base64url of {v: 1, before: id}.
 */
export const DEFAULT_PAGE_SIZE = 20;

/** The query members of every list; spread into its querystring schema. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE, description: 'Page size (default 20)' }),
  ),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'nextCursor of the previous page' })),
};

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean(),
    nextCursor: nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
  });

/** The id rows must stay below, or undefined for the first page; a cursor this API did not issue is a 400. */
export function cursorPosition(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; before?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.before) && (parsed.before as number) > 0)
      return parsed.before as number;
  } catch {
    // fall through: not a cursor this API issued
  }
  throw invalidFormat('cursor', cursor, 'cursor must be the nextCursor of a previous page');
}

/** Cuts a page from `limit + 1` rows: the extra row says whether another page exists, without a count query. */
export function toPage<T extends { id: number }>(
  rows: T[],
  limit: number,
): { data: T[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return {
    data,
    hasMore,
    nextCursor: hasMore ? Buffer.from(JSON.stringify({ v: 1, before: last.id })).toString('base64url') : null,
  };
}
