import type { DbContext } from '../../context.js';
import { fromMinor } from '../../lib/money.js';
import { failureView, type AttemptOutcome } from '../payment-failures.js';
import { getPaymentRequest } from './get-payment-request.js';
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
  return last ? lastPayment(last) : null;
}

/** A card decline is told by its declineCode; any other failure (3-D Secure, UPI, processor) by `failure`. */
function lastPayment(last: AttemptOutcome) {
  const told = { paymentId: last.id, status: last.status, declineCode: last.decline_code };
  return last.status === 'failed' && last.failure_code !== 'card_declined'
    ? { ...told, failure: failureView(last) }
    : told;
}
