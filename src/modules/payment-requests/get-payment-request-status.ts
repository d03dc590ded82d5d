import { notFound } from '../../errors.js';
import { fromMinor } from '../../lib/money.js';
import type { Db } from '../../storage/db.js';
import { findPaymentRequest, type MerchantScope } from './repository.js';
import type { LastPayment } from './schemas.js';
import { effectiveStatus } from './status.js';

/**
 * The latest payment attempt of a request. Payments arrive with issue 4; until then a request
 * has none. Issue 4 replaces this body with a read of its payments table (same merchant scope).
 */
export async function findLastPayment(_db: Db, _scope: MerchantScope, _paymentRequestId: number): Promise<LastPayment | null> {
  return null;
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
