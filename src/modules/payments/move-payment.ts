import type { Db } from '../../storage/db.js';
import type { PaymentStatus } from './tables.js';
import type { PaymentPatch } from '../state-machine.js';
import { transition, type PaymentRow } from './repository.js';
import { announceStatusChange } from './status-changes.js';
import { paymentView } from './view.js';

/**
 * Moves a payment to `to` with `patch` (the settle statement, settle-statement.ts), its event carrying
 * the payment as moved. The only writer of a payment's status after its pending insert: each move is
 * announced to this process (status-changes.ts; the metrics count it) once it has committed. Undefined
 * when the move does not apply (the payment already moved on).
 */
export async function movePayment(
  db: Db,
  now: Date,
  payment: PaymentRow,
  to: PaymentStatus,
  patch: PaymentPatch,
): Promise<PaymentRow | undefined> {
  const moved: PaymentRow = { ...payment, ...patch, status: to, updated_at: now };
  const row = await transition(db, {
    paymentId: payment.id,
    merchantId: payment.merchant_id,
    to,
    patch,
    now,
    payload: paymentView(moved, undefined),
  });
  if (row) announceStatusChange(db, row);
  return row;
}
