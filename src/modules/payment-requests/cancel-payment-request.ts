import { conflict, notFound } from '../../errors.js';
import type { DbContext } from '../../storage/db-context.js';
import { cancelOpenPaymentRequest, findPaymentRequest, type MerchantScope } from './repository.js';
import { assertOpen } from './status.js';

/** open → canceled. Missing (or another merchant's, or the other mode's) → 404; not open → 409. */
export async function cancelPaymentRequest(ctx: DbContext, input: { scope: MerchantScope; id: number }) {
  const { scope, id } = input;
  const now = ctx.clock.now();
  const canceled = await cancelOpenPaymentRequest(ctx.db, scope, id, now);
  if (canceled) return canceled;
  const current = await findPaymentRequest(ctx.db, scope, id);
  if (!current) throw notFound(`payment request ${id}`);
  assertOpen(current, now, 'be canceled');
  // It was not open during the update but is open now (a failed payment attempt reopened it).
  throw conflict(
    `Payment request ${id} changed while it was being canceled; retry`,
    { paymentRequestId: id },
    { transient: true },
  );
}
