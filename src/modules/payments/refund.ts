import { conflict, invalidFormat, notFound } from '../../errors.js';
import { inTransaction } from '../../context.js';
import { toMinor } from '../../lib/money.js';
import { insertEvent } from '../events/index.js';
import { recordRefundOnRequest } from '../payment-requests/index.js';
import { finishRefund, findPayment, insertRefund, releaseRefund, reserveRefund, type Scope } from './repository.js';
import type { PaymentContext } from './types.js';

const exceeds = (amount: number | null) =>
  invalidFormat('amount', amount, 'The refund exceeds the amount captured and not yet refunded');

/**
 * Full or partial refund of a captured payment. The amount is reserved on the payment with a
 * conditional update first (so concurrent refunds can never exceed what was captured), then the
 * processor is asked; a failed refund releases its reservation. Refunds never change the
 * payment's status; the payment and its request carry the refunded total.
 */
export async function refundPayment(
  ctx: PaymentContext,
  input: { scope: Scope; paymentId: number; amount?: number; reason?: string },
) {
  const { scope } = input;
  const payment = await findPayment(ctx.db, scope, input.paymentId);
  if (!payment) throw notFound('payment');
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
  const now = ctx.clock.now();

  const refund = await inTransaction(ctx, async (trx) => {
    if (!(await reserveRefund(trx.db, scope, payment.id, amount, now))) throw exceeds(input.amount ?? null);
    return insertRefund(trx.db, scope, {
      paymentId: payment.id,
      amount,
      currency: payment.currency,
      reason: input.reason ?? null,
      now,
    });
  });

  let outcome: { refundId: string; status: 'succeeded' | 'pending' } | undefined;
  try {
    outcome = await ctx.processors
      .get(payment.processor)!
      .refund(payment.processor_payment_id!, amount, `rf_${refund.id}`);
  } catch {
    outcome = undefined;
  }
  return inTransaction(ctx, async (trx) => {
    const done = ctx.clock.now();
    const status = outcome ? outcome.status : 'failed';
    const updated = await finishRefund(trx.db, refund.id, status, outcome?.refundId ?? null, done);
    if (status === 'failed') {
      await releaseRefund(trx.db, payment.id, amount, done);
    } else {
      await recordRefundOnRequest(trx, {
        merchantId: scope.merchantId,
        paymentRequestId: payment.payment_request_id,
        amount,
      });
    }
    if (status !== 'pending') {
      await insertEvent(trx.db, status === 'succeeded' ? 'refund.succeeded' : 'refund.failed', {
        merchantId: scope.merchantId,
        livemode: scope.livemode,
        objectId: updated.id,
        payload: { refundId: updated.id, paymentId: payment.id, amount, currency: payment.currency, status },
        createdAt: done,
      }).execute();
    }
    return updated;
  });
}
