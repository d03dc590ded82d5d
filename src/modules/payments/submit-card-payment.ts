import { AppError, notFound } from '../../errors.js';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';
import type { AuthorizeOutcome } from '../../processors/types.js';
import { checkCard, isExpired, type CheckedCard } from '../cards/index.js';
import { beginAttempt, type StoredCard } from './begin-attempt.js';
import { cardPaymentResult } from './card-payment-result.js';
import { challengeReturnUrl } from './challenge-return.js';
import { refuseLiveMode } from './live-mode.js';
import { resumeCardPayment } from './resume-card-payment.js';
import { findPayment, findUsableCard, type CardRow, type PaymentRow } from './repository.js';
import { settlePayment } from './settle.js';
import type { CardPaymentInput, CardPaymentResult, PaymentContext, Settlement } from './types.js';
import { checkNotifyUrl } from '../notifications/index.js';

const CARD_TOKEN_PREFIX = 'ctok_';

/**
 * Card and stored-card payments. The order is deliberate: everything that can be rejected without
 * side effects is checked first; the payment row is committed (pending) before the processor is
 * called, so nothing acknowledged is lost; the processor gets the payment id as its idempotency
 * reference, so a retry cannot charge twice; the reconciliation sweep (jobs.ts) settles any payment the
 * processor did not answer in time.
 */
export async function submitCardPayment(ctx: PaymentContext, input: CardPaymentInput): Promise<CardPaymentResult> {
  const now = ctx.clock.now();
  refuseLiveMode(input, 'card processor');
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: input.options.notifyUrl });
  const resume = input.recoveryPoint?.resume;
  const resumed = resume ? await resumeCardPayment(ctx, { merchantId: input.merchantId, resume }) : undefined;
  if (resumed) return resumed;
  const card = input.source.kind === 'card' ? checkCard(input.source, now) : undefined;
  const stored: StoredCard = card
    ? { pan: card.number, cvv: card.cvv, token: `${CARD_TOKEN_PREFIX}${randomBase62(32)}` }
    : await storedCard(ctx, input.merchantId, (input.source as { token: string }).token, now);

  const first = await attempt(ctx, input, stored, card, input.processor);
  if (first.retryableError && input.failover) {
    const alternative = ctx.processors.alternative(first.payment.processor);
    if (alternative) {
      // The first attempt created nothing at its processor; the card row is reused, not stored twice.
      const second = await attempt(ctx, input, { ...stored, row: first.card }, undefined, alternative.name);
      return cardPaymentResult(second.payment, second.card, stored.token);
    }
  }
  return cardPaymentResult(first.payment, first.card, stored.token);
}

async function storedCard(ctx: PaymentContext, merchantId: number, token: string, now: Date): Promise<StoredCard> {
  const row = await findUsableCard(ctx.db, merchantId, sha256Hex(token));
  if (!row) throw notFound('card token');
  if (isExpired({ month: row.exp_month, year: row.exp_year }, now)) {
    throw new AppError('INVALID_CARD', 'The stored card has expired', {
      details: { field: 'token', reason: 'card expired' },
    });
  }
  return { row, pan: ctx.vault.decrypt(row.pan_ciphertext, row.key_id), token: null };
}

/** One authorization attempt on one processor (the merchant's default when none is named): commit pending, call, settle. */
async function attempt(
  ctx: PaymentContext,
  input: CardPaymentInput,
  stored: StoredCard,
  newCard: CheckedCard | undefined,
  processorName: string | undefined,
): Promise<{ payment: PaymentRow; card: CardRow; retryableError: boolean }> {
  const { payment, card } = await beginAttempt(ctx, { payment: input, stored, newCard, processor: processorName });

  const processor = ctx.processors.get(payment.processor);
  const outcome: AuthorizeOutcome = processor
    ? await processor.authorize({
        reference: `pay_${payment.id}`,
        amount: payment.amount,
        currency: payment.currency,
        capture: payment.capture_delay_hours === 0,
        card: {
          number: stored.pan,
          expMonth: card.exp_month,
          expYear: card.exp_year,
          cvv: stored.cvv,
          holder: card.holder_name,
        },
        threeDS: {
          force: input.is3ds,
          returnUrl: challengeReturnUrl(ctx, payment.id),
          browserInfo: input.options.browserInfo ?? undefined,
        },
        testHeaders: input.testHeaders,
      })
    : { kind: 'error', retryable: true, message: `processor ${payment.processor} is not configured` };

  const settlement = toSettlement(outcome);
  const settled = settlement ? await settlePayment(ctx, { payment, settlement }) : undefined;
  // Undefined: still pending (time-out) or a callback settled it first; either way read what is true now.
  const current =
    settled ?? (await findPayment(ctx.db, { merchantId: input.merchantId, livemode: false }, payment.id))!;
  return { payment: current, card, retryableError: outcome.kind === 'error' && outcome.retryable };
}

/** A processor's answer to an authorization as a settlement; undefined when there was no answer in time. */
export function toSettlement(outcome: AuthorizeOutcome): Settlement | undefined {
  switch (outcome.kind) {
    case 'approved':
      return {
        kind: 'approved',
        processorPaymentId: outcome.processorPaymentId,
        captured: outcome.captured,
        // Frictionless 3-D Secure: authenticated by the issuer without a challenge.
        ...(outcome.eci ? { threeDs: { result: 'Y', eci: outcome.eci, authenticationValue: null } } : {}),
      };
    case 'declined':
      return {
        kind: 'declined',
        processorPaymentId: outcome.processorPaymentId,
        declineCode: outcome.declineCode,
        declineReason: outcome.declineReason,
      };
    case 'challenge':
      return { kind: 'challenge', processorPaymentId: outcome.processorPaymentId, challengeUrl: outcome.challengeUrl };
    case 'pending':
      return { kind: 'pending', processorPaymentId: outcome.processorPaymentId };
    case 'error':
      return {
        kind: 'failed',
        processorPaymentId: null,
        failureCode: 'processor_error',
        declineReason: outcome.message,
      };
    case 'timeout':
      return undefined;
  }
}
