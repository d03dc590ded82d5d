import { conflict, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { cancelOpenPaymentRequest, findPaymentRequest, type MerchantScope } from './repository.js';
import { assertOpen } from './status.js';

/** open → canceled. Missing (or another merchant's, or the other mode's) → 404; not open → 409. */
export async function cancelPaymentRequest(db: Db, clock: Clock, scope: MerchantScope, id: number) {
  const now = clock.now();
  const canceled = await cancelOpenPaymentRequest(db, scope, id, now);
  if (canceled) return canceled;
  const current = await findPaymentRequest(db, scope, id);
  if (!current) throw notFound(`payment request ${id}`);
  assertOpen(current, now, 'be canceled');
  // It was not open during the update but is open now (a failed payment attempt reopened it).
  throw conflict(`Payment request ${id} changed while it was being canceled; retry`, { paymentRequestId: id }, { transient: true });
}
