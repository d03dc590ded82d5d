import { sql } from 'kysely';
import { conflict, invalidFormat, notFound } from '../../errors.js';
import { toMinor } from '../../lib/money.js';
import type { Db } from '../../storage/db.js';
import { recordEvent } from '../outbox.js';
import { findPayment, type Scope } from './repository.js';
import { transitionPaymentRequest } from '../state-machine.js';
import type { PaymentDeps } from './submit-card-payment.js';

/**
 * Full or partial refund of a captured payment. The amount is reserved on the payment with a
 * conditional update first (so concurrent refunds can never exceed what was captured), then the
 * processor is asked; a failed refund releases its reservation. Refunds never change the
 * payment's status; the payment and its request carry the refunded total.
 */
export async function refundPayment(deps: PaymentDeps, scope: Scope, paymentId: number, input: { amount?: number; reason?: string }) {
  const payment = await findPayment(deps.db, scope, paymentId);
  if (!payment) throw notFound('payment');
  if (payment.status !== 'succeeded') throw conflict(`Only a succeeded payment can be refunded; this one is ${payment.status}`, { status: payment.status });
  const remaining = payment.amount_captured - payment.amount_refunded;
  let amount = remaining;
  if (input.amount !== undefined) {
    const minor = toMinor(input.amount, payment.currency);
    if (minor === undefined || minor <= 0) throw invalidFormat('amount', input.amount, `amount must be positive with at most the decimals ${payment.currency} allows`);
    amount = minor;
  }
  if (amount <= 0 || amount > remaining) {
    throw invalidFormat('amount', input.amount ?? null, 'The refund exceeds the amount captured and not yet refunded');
  }
  const now = deps.clock.now();

  const refund = await deps.db.transaction().execute(async (trx) => {
    const reserved = await trx
      .updateTable('payments')
      .set({ amount_refunded: sql`amount_refunded + ${amount}`, updated_at: now })
      .where('id', '=', payment.id)
      .where('merchant_id', '=', scope.merchantId)
      .where(sql<boolean>`amount_refunded + ${amount} <= amount_captured`)
      .returning('id')
      .executeTakeFirst();
    if (!reserved) throw invalidFormat('amount', input.amount ?? null, 'The refund exceeds the amount captured and not yet refunded');
    return trx
      .insertInto('refunds')
      .values({
        merchant_id: scope.merchantId,
        livemode: scope.livemode,
        payment_id: payment.id,
        amount,
        currency: payment.currency,
        status: 'pending',
        reason: input.reason ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });

  let outcome: { refundId: string; status: 'succeeded' | 'pending' } | undefined;
  try {
    outcome = await deps.processors.get(payment.processor)!.refund(payment.processor_payment_id!, amount, `rf_${refund.id}`);
  } catch {
    outcome = undefined;
  }
  return deps.db.transaction().execute(async (trx) => {
    const done = deps.clock.now();
    const status = outcome ? outcome.status : 'failed';
    const updated = await trx
      .updateTable('refunds')
      .set({ status, processor_refund_id: outcome?.refundId ?? null, updated_at: done })
      .where('id', '=', refund.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (status === 'failed') {
      await trx.updateTable('payments').set({ amount_refunded: sql`amount_refunded - ${amount}`, updated_at: done }).where('id', '=', payment.id).execute();
    } else {
      await applyRefundToRequest(trx, payment.payment_request_id, scope.merchantId, amount, done);
    }
    if (status !== 'pending') {
      await recordEvent(trx, {
        merchantId: scope.merchantId,
        livemode: scope.livemode,
        type: status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
        objectId: updated.id,
        object: { refundId: updated.id, paymentId: payment.id, amount, currency: payment.currency, status },
        now: done,
      });
    }
    return updated;
  });
}

async function applyRefundToRequest(trx: Db, requestId: number, merchantId: number, amount: number, now: Date): Promise<void> {
  const request = await trx
    .selectFrom('payment_requests')
    .select(['amount_paid', 'amount_refunded'])
    .where('id', '=', requestId)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const refunded = request.amount_refunded + amount;
  await transitionPaymentRequest(trx, { id: requestId, merchantId }, refunded >= request.amount_paid ? 'refunded' : 'partially_refunded', now, {
    amount_refunded: refunded,
  });
}
