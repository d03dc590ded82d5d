/** The audit log belongs to the audit module, which alone writes and lists it. */
import type { Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

/** A sensitive action (key rotation, refund, settings change), who did it and when. */
export interface AuditLogTable {
  id: Generated<number>;
  merchant_id: number;
  user_id: number | null;
  livemode: boolean | null;
  action: string;
  /** The request's path: what was acted on. */
  target: string;
  request_id: string;
  at: Timestamp;
}

declare module '../../storage/schema.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}
