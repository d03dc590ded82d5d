import type { ExpressionBuilder, Selectable } from 'kysely';
import { conflict } from '../../errors.js';
import type { Database } from '../../storage/schema.js';
import type { PaymentRequestStatus, PaymentRequestsTable } from './tables.js';

type PaymentRequestRow = Pick<Selectable<PaymentRequestsTable>, 'status' | 'expires_at'>;

/**
 * The status a client sees. An open request whose expiresAt has passed is expired at once,
 * even before the expiry job has written it: there is no window in which it can still be paid.
 */
export function effectiveStatus(row: PaymentRequestRow, now: Date): PaymentRequestStatus {
  if (row.status === 'open' && row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.status;
}

/** Guards every action that needs an open request (checkout tokens, payments): 409 otherwise. */
export function assertOpen(row: PaymentRequestRow & { id: number }, now: Date, action: string): void {
  const status = effectiveStatus(row, now);
  if (status !== 'open') {
    // processing and authorized are on their way to paid or back to open: a retry may find it otherwise.
    throw conflict(
      `Payment request ${row.id} is ${status}; only an open payment request can ${action}`,
      { paymentRequestId: row.id, status },
      { transient: status === 'processing' || status === 'authorized' },
    );
  }
}

/** SQL twin of effectiveStatus(row) === 'open', for conditional updates and list filters. */
export function openAt(eb: ExpressionBuilder<Database, 'payment_requests'>, now: Date) {
  return eb.and([eb('status', '=', 'open'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);
}

/** SQL twin of effectiveStatus(row) === status. */
export function hasEffectiveStatus(
  eb: ExpressionBuilder<Database, 'payment_requests'>,
  status: PaymentRequestStatus,
  now: Date,
) {
  if (status === 'open') return openAt(eb, now);
  if (status === 'expired') {
    return eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'open'), eb('expires_at', '<=', now)])]);
  }
  return eb('status', '=', status);
}
