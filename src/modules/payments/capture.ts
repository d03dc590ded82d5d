import { AppError, conflict, notFound } from '../../errors.js';
import { ProcessorCallError } from '../../processors/types.js';
import { movePayment } from './move-payment.js';
import { findPayment, type PaymentRow, type Scope } from './repository.js';
import { atProcessor, connectionGone, processorOf } from './routing.js';
import type { PaymentContext } from './types.js';

type FollowUp = { scope: Scope; paymentId: number };

/**
 * Captures an authorized payment: early by the merchant, or by the scheduled capture job.
 * The processor call comes first; if a concurrent capture won, the processor refuses the second
 * and the current state is returned (idempotent from the merchant's side).
 */
export async function capturePayment(ctx: PaymentContext, input: FollowUp): Promise<PaymentRow> {
  const { scope, paymentId } = input;
  const payment = await findPayment(ctx.db, scope, paymentId);
  if (!payment) throw notFound('payment');
  if (payment.status === 'succeeded') return payment;
  if (payment.status !== 'authorized')
    throw conflict(`Only an authorized payment can be captured; this one is ${payment.status}`, {
      status: payment.status,
    });
  const processor = await processorOf(ctx, payment);
  if (!processor) throw connectionGone(payment);
  try {
    await processor.capture(atProcessor(payment), payment.amount);
  } catch (error) {
    // 409: a concurrent capture (the scheduled job, a retry) got there first; the state below tells.
    if (!(error instanceof ProcessorCallError && error.status === 409))
      throw processorFailed('capture', payment.id, error);
  }
  return (await finish(ctx, payment, 'succeeded')) ?? reread(ctx, input);
}

/** Voids an authorized payment; the payment request opens again for another attempt. */
export async function cancelPayment(ctx: PaymentContext, input: FollowUp): Promise<PaymentRow> {
  const { scope, paymentId } = input;
  const payment = await findPayment(ctx.db, scope, paymentId);
  if (!payment) throw notFound('payment');
  if (payment.status === 'canceled') return payment;
  if (payment.status !== 'authorized')
    throw conflict(`Only an authorized payment can be canceled; this one is ${payment.status}`, {
      status: payment.status,
    });
  const processor = await processorOf(ctx, payment);
  if (!processor) throw connectionGone(payment);
  try {
    await processor.void(atProcessor(payment));
  } catch (error) {
    throw processorFailed('void', payment.id, error);
  }
  const updated = await finish(ctx, payment, 'canceled');
  if (updated) return updated;
  const current = await reread(ctx, input);
  if (current.status !== 'canceled')
    throw conflict(`The payment was ${current.status} before it could be canceled`, { status: current.status });
  return current;
}

/** The payment is unchanged; the merchant may retry the same call. */
function processorFailed(action: string, paymentId: number, error: unknown): AppError {
  return new AppError(
    'PROCESSOR_UNAVAILABLE',
    `The processor could not ${action} the payment; it is unchanged and the call can be retried`,
    {
      details: { reason: (error as Error).message },
      extensions: { paymentId },
    },
  );
}

async function finish(
  ctx: PaymentContext,
  payment: PaymentRow,
  to: 'succeeded' | 'canceled',
): Promise<PaymentRow | undefined> {
  return movePayment(ctx.db, ctx.clock.now(), payment, to, {
    ...(to === 'succeeded' ? { amount_captured: payment.amount } : {}),
    capture_at: null,
  });
}

async function reread(ctx: PaymentContext, input: FollowUp): Promise<PaymentRow> {
  return (await findPayment(ctx.db, input.scope, input.paymentId))!;
}
