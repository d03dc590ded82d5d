import { conflict, invalidFormat, notFound } from '../../errors.js';
import { inTransaction } from '../../storage/db-context.js';
import { toMinor } from '../../lib/money.js';
import { ProcessorCallError } from '../../processors/types.js';
import { recordAudit, type AuditEntry } from '../audit/index.js';
import { recordRecoveryPoint, type Claim } from '../idempotency/index.js';
import {
  findPayment,
  findRefund,
  insertRefund,
  isUnfinished,
  reserveRefund,
  type PaymentRow,
  type RefundRow,
  type Scope,
} from './repository.js';
import { recordRefundOutcome, type RefundOutcome } from './finish-refund.js';
import { atProcessor, connectionGone, processorOf } from './routing.js';
import type { PaymentContext } from './types.js';

const exceeds = (amount: number | null) =>
  invalidFormat('amount', amount, 'The refund exceeds the amount captured and not yet refunded');

export interface RefundInput {
  scope: Scope;
  paymentId: number;
  amount?: number;
  reason?: string;
  /** Sandbox test controls forwarded to the processor (test mode only). */
  testHeaders?: Record<string, string>;
  /** The idempotency claim the request runs under, and the refund an interrupted earlier run of it committed. */
  recoveryPoint?: Claim & { resumeRefundId?: number };
  /** The merchant's audit entry for this refund, committed with it. */
  audit?: Omit<AuditEntry, 'at'>;
}

/**
 * Full or partial refund of a captured payment. The amount is reserved on the payment with a
 * conditional update and the refund committed (with the request's recovery point) first, so
 * concurrent refunds can never exceed what was captured; then the processor is asked, with the
 * refund's own reference, so asking again never refunds twice. Refunds never change the payment's
 * status; the payment and its request carry the refunded total.
 *
 * A retry of a request that committed its refund and then died resumes that refund instead of
 * reserving another; a refund nobody retries is finished by the sweep (`finishUnfinishedRefunds`).
 */
export async function refundPayment(ctx: PaymentContext, input: RefundInput): Promise<RefundRow> {
  const { scope, recoveryPoint } = input;
  const payment = await findPayment(ctx.db, scope, input.paymentId);
  if (!payment) throw notFound('payment');
  const earlier = recoveryPoint?.resumeRefundId && (await findRefund(ctx.db, recoveryPoint.resumeRefundId));
  if (earlier) return isUnfinished(earlier) ? askProcessor(ctx, payment, earlier, input.testHeaders) : earlier;
  if (payment.status !== 'succeeded')
    throw conflict(`Only a succeeded payment can be refunded; this one is ${payment.status}`, {
      status: payment.status,
    });
  const remaining = payment.amount_captured - payment.amount_refunded;
  let amount = remaining;
  if (input.amount !== undefined) {
    const minor = toMinor(input.amount, payment.currency);
    if (minor === undefined || minor <= 0)
      throw invalidFormat(
        'amount',
        input.amount,
        `amount must be positive with at most the decimals ${payment.currency} allows`,
      );
    amount = minor;
  }
  if (amount <= 0 || amount > remaining) throw exceeds(input.amount ?? null);
  if (!(await processorOf(ctx, payment))) throw connectionGone(payment);
  const now = ctx.clock.now();

  const refund = await inTransaction(ctx, async (trx) => {
    if (!(await reserveRefund(trx.db, scope, payment.id, amount, now))) throw exceeds(input.amount ?? null);
    const inserted = await insertRefund(trx.db, scope, {
      paymentId: payment.id,
      amount,
      currency: payment.currency,
      reason: input.reason ?? null,
      now,
    });
    if (recoveryPoint) await recordRecoveryPoint(trx.db, recoveryPoint, inserted.id);
    if (input.audit) await recordAudit(trx, input.audit);
    return inserted;
  });
  return askProcessor(ctx, payment, refund, input.testHeaders);
}

/**
 * Asks the processor for an unfinished refund and records its answer (finish-refund.ts): succeeded or
 * pending as it says; failed (the reservation released) when it refused. Without an answer (a time-out,
 * a 5xx, a broken connection) the outcome is unknown: the refund stays unfinished, answered as pending,
 * and the sweep asks again with the same reference (or the processor's webhook finishes it). Whoever
 * records an answer first wins; the others return the refund as it then stands.
 */
export async function askProcessor(
  ctx: PaymentContext,
  payment: PaymentRow,
  refund: RefundRow,
  testHeaders?: Record<string, string>,
): Promise<RefundRow> {
  let outcome: RefundOutcome;
  // Its connection removed since: the refund stays unfinished, answered as pending.
  const processor = await processorOf(ctx, payment);
  if (!processor) return refund;
  try {
    outcome = await processor.refund(atProcessor(payment), refund.amount, `rf_${refund.id}`, testHeaders);
  } catch (error) {
    const refused = error instanceof ProcessorCallError && error.status !== undefined && error.status < 500;
    if (!refused) return refund;
    outcome = { refundId: null, status: 'failed' };
  }
  const finished = await inTransaction(ctx, (trx) =>
    recordRefundOutcome(trx, { payment, refundId: refund.id, outcome }),
  );
  return finished ?? (await findRefund(ctx.db, refund.id))!;
}
