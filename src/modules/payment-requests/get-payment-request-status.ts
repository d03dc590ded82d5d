import type { DbContext } from '../../storage/db-context.js';
import { fromMinor } from '../../lib/money.js';
import { getPaymentRequest } from './get-payment-request.js';
import { attemptOutcome } from './last-payment.js';
import { findLastPayment, type MerchantScope } from './repository.js';
import { effectiveStatus } from './status.js';

/** Compact status for polling: the request's status and what happened to its last attempt. */
export async function getPaymentRequestStatus(ctx: DbContext, input: { scope: MerchantScope; id: number }) {
  const row = await getPaymentRequest(ctx, input);
  const last = await lastPaymentOf(ctx, { scope: input.scope, id: row.id });
  return {
    paymentRequestId: row.id,
    status: effectiveStatus(row, ctx.clock.now()),
    amount: fromMinor(row.amount, row.currency),
    unit: row.currency,
    referenceId: row.reference,
    lastPayment: last,
  };
}

/** The request's latest payment attempt and its outcome, or null before the first. */
export async function lastPaymentOf(ctx: Pick<DbContext, 'db'>, input: { scope: MerchantScope; id: number }) {
  const last = await findLastPayment(ctx.db, input.scope, input.id);
  return last ? attemptOutcome(last) : null;
}
