import { AppError } from '../../errors.js';
import { beginAttemptWithoutCard } from './begin-attempt.js';
import { refuseLiveMode } from './live-mode.js';
import { findPayment, type PaymentRow } from './repository.js';
import { settlePayment } from './settle.js';
import type { PaymentContext, Settlement, UpiPaymentInput } from './types.js';
import { checkNotifyUrl } from '../notifications/index.js';

/** decisions.md "Sandbox behaviour": username@bankcode. */
const UPI_ID = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;
export const UPI_ID_FORMAT = 'username@bankcode';

/**
 * UPI payments, host to host: a collect (to the payer's UPI id) or an intent (a `upi://pay` link and
 * the PSP's payer page). Like cards: checked first, the pending payment committed (with its recovery
 * point) before the PSP is called with the payment id as its reference; then the payment waits for
 * the payer (`requires_action`) until the PSP's callback settles it (on-callback.ts) or
 * UPI_COLLECT_TTL_SECONDS pass (jobs.ts).
 */
export async function submitUpiPayment(ctx: PaymentContext, input: UpiPaymentInput): Promise<PaymentRow> {
  // An intent needs no UPI id; one given anyway is checked all the same.
  if (input.upiId !== undefined && !UPI_ID.test(input.upiId)) {
    throw new AppError('INVALID_UPI_ID', `upiId must look like ${UPI_ID_FORMAT}`, {
      details: { upiId: input.upiId, expectedFormat: UPI_ID_FORMAT },
    });
  }
  refuseLiveMode(input, 'UPI service provider');
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: input.options.notifyUrl });
  const scope = { merchantId: input.merchantId, livemode: false };

  const { payment, resumed } = await beginAttemptWithoutCard(ctx, {
    ...input,
    processor: 'upi',
    method: 'upi',
    captureDelayHours: 0,
    options: {
      ...input.options,
      upiFlow: input.upiFlow,
      upiId: input.upiId ?? null,
      // What the payer is shown as the time left (upiExpiresAt); the expiry itself is jobs.ts's.
      upiTtlSeconds: ctx.config.upiCollectTtlSeconds,
    },
  });
  if (resumed) return payment;

  const request = {
    reference: `pay_${payment.id}`,
    amount: payment.amount,
    currency: payment.currency,
    testHeaders: input.testHeaders,
  };
  const outcome =
    input.upiFlow === 'collect'
      ? await ctx.processors.upi.collect({ ...request, upiId: input.upiId })
      : await ctx.processors.upi.intent(request);
  const settlement: Settlement | undefined =
    outcome.kind === 'pending'
      ? {
          kind: 'challenge',
          processorPaymentId: outcome.processorPaymentId,
          challengeUrl: outcome.payerUrl,
          upiIntentUrl: outcome.intentUrl,
        }
      : outcome.kind === 'error'
        ? { kind: 'failed', processorPaymentId: null, failureCode: 'processor_error', declineReason: outcome.message }
        : undefined;
  const settled = settlement ? await settlePayment(ctx, { payment, settlement }) : undefined;
  // Undefined: no answer in time, or the PSP's callback got there first; read what is true now.
  return settled ?? (await findPayment(ctx.db, scope, payment.id))!;
}
