import type { Db } from '../../storage/db.js';
import type { AuditAction } from './actions.js';

export interface AuditEntry {
  merchantId: number;
  userId: number | null;
  livemode: boolean | null;
  action: AuditAction;
  target: string;
  requestId: string;
  at: Date;
}

export async function insertAuditEntry(db: Db, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      merchant_id: entry.merchantId,
      user_id: entry.userId,
      livemode: entry.livemode,
      action: entry.action,
      target: entry.target,
      request_id: entry.requestId,
      at: entry.at,
    })
    .execute();
}

/** A merchant's entries below `before` (keyset), newest first, with who acted. */
export async function findAuditEntries(db: Db, merchantId: number, before: number | undefined, limit: number) {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.action', 'a.target', 'a.livemode', 'a.request_id', 'a.at', 'u.email'])
    .where('a.merchant_id', '=', merchantId);
  if (before !== undefined) query = query.where('a.id', '<', before);
  return query.orderBy('a.id', 'desc').limit(limit).execute();
}
