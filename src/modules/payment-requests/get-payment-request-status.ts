import { notFound } from '../../errors.js';
import { fromMinor } from '../../lib/money.js';
import type { Db } from '../../storage/db.js';
import { listPaymentsOfRequest } from '../payments/repository.js';
import { findPaymentRequest, type MerchantScope } from './repository.js';
import type { LastPayment } from './schemas.js';
import { effectiveStatus } from './status.js';

/** The latest payment attempt of a request, or null when it has none. */
export async function findLastPayment(db: Db, scope: MerchantScope, paymentRequestId: number): Promise<LastPayment | null> {
  const [row] = await listPaymentsOfRequest(db, scope, paymentRequestId, 1);
  return row ? { paymentId: row.id, status: row.status, declineCode: row.decline_code } : null;
}

/** Compact status for polling: the request's status and what happened to its last attempt. */
export async function getPaymentRequestStatus(db: Db, now: Date, scope: MerchantScope, id: number) {
  const row = await findPaymentRequest(db, scope, id);
  if (!row) throw notFound(`payment request ${id}`);
  return {
    paymentRequestId: row.id,
    status: effectiveStatus(row, now),
    amount: fromMinor(row.amount, row.currency),
    unit: row.currency,
    referenceId: row.reference,
    lastPayment: await findLastPayment(db, scope, row.id),
  };
}
