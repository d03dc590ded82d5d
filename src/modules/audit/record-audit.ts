import type { DbContext } from '../../storage/db-context.js';
import { insertAuditEntry, type AuditEntry } from './repository.js';

/** Writes one sensitive action to the merchant's audit log; the caller owns the transaction, the change's. */
export async function recordAudit(ctx: DbContext, entry: Omit<AuditEntry, 'at'>): Promise<void> {
  await insertAuditEntry(ctx.db, { ...entry, at: ctx.clock.now() });
}
