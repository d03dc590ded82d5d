/** The audit module: sensitive actions (key rotation, refund, settings change), who and when, for owners. */
export { auditRoutes as routes } from './routes.js';
export { recordAudit } from './record-audit.js';
export { auditEntryOf, inAuditedTransaction } from './audited-transaction.js';
export type { AuditEntry } from './repository.js';
export type { AuditAction } from './actions.js';
export type { AuditLogTable } from './tables.js';
