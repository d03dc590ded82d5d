import type { DbContext } from '../../context.js';
import { fromMinor } from '../../lib/money.js';
import { getPaymentRequest } from './get-payment-request.js';
import { findLastPayment, type MerchantScope } from './repository.js';
import { effectiveStatus } from './status.js';

/** Compact status for polling: the request's status and what happened to its last attempt. */
export async function getPaymentRequestStatus(ctx: DbContext, input: { scope: MerchantScope; id: number }) {
  const row = await getPaymentRequest(ctx, input);
  const last = await findLastPayment(ctx.db, input.scope, row.id);
  return {
    paymentRequestId: row.id,
    status: effectiveStatus(row, ctx.clock.now()),
    amount: fromMinor(row.amount, row.currency),
    unit: row.currency,
    referenceId: row.reference,
    lastPayment: last ? { paymentId: last.id, status: last.status, declineCode: last.decline_code } : null,
  };
}
