import type { DbContext } from '../../storage/db-context.js';
import { lockPaidTotals, setRefunded } from './repository.js';

/** A refund of one of its payments succeeded (or is under way): the request carries the refunded total. Caller owns the transaction. */
export async function recordRefundOnRequest(
  ctx: DbContext,
  input: { merchantId: number; paymentRequestId: number; amount: number },
) {
  const request = await lockPaidTotals(ctx.db, input.merchantId, input.paymentRequestId);
  const refunded = request.amount_refunded + input.amount;
  await setRefunded(
    ctx.db,
    input.merchantId,
    input.paymentRequestId,
    refunded >= request.amount_paid ? 'refunded' : 'partially_refunded',
    refunded,
    ctx.clock.now(),
  );
}
