import { AppError, notFound } from '../../errors.js';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';
import type { AuthorizeOutcome } from '../../processors/types.js';
import { checkCard, isExpired, type CheckedCard } from '../cards/index.js';
import type { ConnectionSlot } from '../processor-connections/index.js';
import { retryDeclineCodesOf } from '../notifications/index.js';
import { beginAttempt, type StoredCard } from './begin-attempt.js';
import { cardPaymentResult } from './card-payment-result.js';
import { challengeReturnUrl } from './challenge-return.js';
import { refuseSandboxInLiveMode } from './live-mode.js';
import { resumeCardPayment } from './resume-card-payment.js';
import { findPayment, findUsableCard, type CardRow, type PaymentRow } from './repository.js';
import { connectionRoutes, everyCircuitOpen, slotOf, type Route } from './routing.js';
import { settlePayment } from './settle.js';
import { toSettlement } from './settlement-of.js';
import type { CardPaymentInput, CardPaymentResult, PaymentContext } from './types.js';
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
  refuseSandboxInLiveMode(input);
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: input.options.notifyUrl });
  const resume = input.recoveryPoint?.resume;
  const resumed = resume
    ? await resumeCardPayment(ctx, { merchantId: input.merchantId, mode: input.mode, resume })
    : undefined;
  if (resumed) return resumed;
  const card = input.source.kind === 'card' ? checkCard(input.source, now) : undefined;
  const stored: StoredCard = card
    ? { pan: card.number, cvv: card.cvv, token: `${CARD_TOKEN_PREFIX}${randomBase62(32)}` }
    : await storedCard(ctx, input, (input.source as { token: string }).token, now);
  const slot = slotOf(input.processor);
  const routes = await connectionRoutes(ctx, { merchantId: input.merchantId, mode: input.mode, slot });
  const result =
    routes.length > 0
      ? await throughConnections(ctx, input, { stored, card, routes, slot })
      : await throughSandbox(ctx, input, { stored, card });
  return cardPaymentResult(result.payment, result.card, stored.token);
}

type Attempted = Awaited<ReturnType<typeof attempt>>;

/**
 * The merchant's connections for the path, highest priority first. The next one is tried only when
 * nothing can have been charged: the connection refused before creating anything (retryable), or
 * its circuit is open; or, when the merchant asks for it, the issuer declined with one of the codes
 * the merchant retries. A time-out stops here: the payment stays pending and is reconciled.
 */
async function throughConnections(
  ctx: PaymentContext,
  input: CardPaymentInput,
  how: { stored: StoredCard; card: CheckedCard | undefined; routes: Route[]; slot: ConnectionSlot },
): Promise<Attempted> {
  let last: Attempted | undefined;
  let retryCodes: string[] | undefined;
  for (const [index, route] of how.routes.entries()) {
    if (route.circuit && !ctx.circuits.allow(route.circuit)) continue;
    // After a first attempt the card is stored: the next attempt reuses its row.
    const stored = last ? { ...how.stored, row: last.card } : how.stored;
    last = await attempt(ctx, input, stored, last ? undefined : how.card, route);
    if (index === how.routes.length - 1 || last.payment.status !== 'failed') break;
    if (last.retryableError) continue;
    if (last.payment.failure_code !== 'card_declined') break;
    retryCodes ??= await retryDeclineCodesOf(ctx, { merchantId: input.merchantId, livemode: input.mode === 'live' });
    if (!retryCodes?.includes(last.payment.decline_code ?? '')) break;
  }
  if (!last) throw everyCircuitOpen(how.slot);
  return last;
}

/** No connection (test mode): the built-in sandbox processor of the path; h2h fails over once to the other. */
async function throughSandbox(
  ctx: PaymentContext,
  input: CardPaymentInput,
  how: { stored: StoredCard; card: CheckedCard | undefined },
): Promise<Attempted> {
  const sandboxRoute = (processorName: string | undefined): Route => ({ processorName, connectionId: null });
  const first = await attempt(ctx, input, how.stored, how.card, sandboxRoute(input.processor));
  const alternative = first.retryableError && input.failover && ctx.processors.alternative(first.payment.processor);
  if (!alternative) return first;
  // The first attempt created nothing at its processor; the card row is reused, not stored twice.
  return attempt(ctx, input, { ...how.stored, row: first.card }, undefined, sandboxRoute(alternative.name));
}

async function storedCard(
  ctx: PaymentContext,
  input: Pick<CardPaymentInput, 'merchantId' | 'mode'>,
  token: string,
  now: Date,
): Promise<StoredCard> {
  const row = await findUsableCard(
    ctx.db,
    { merchantId: input.merchantId, livemode: input.mode === 'live' },
    sha256Hex(token),
  );
  if (!row) throw notFound('card token');
  if (isExpired({ month: row.exp_month, year: row.exp_year }, now)) {
    throw new AppError('INVALID_CARD', 'The stored card has expired', {
      details: { field: 'token', reason: 'card expired' },
    });
  }
  return { row, pan: ctx.vault.decrypt(row.pan_ciphertext, row.key_id), token: null };
}

/**
 * One authorization attempt on one route: commit pending, call, settle. The connection's circuit
 * learns whether the processor answered (any answer) or was unavailable.
 */
async function attempt(
  ctx: PaymentContext,
  input: CardPaymentInput,
  stored: StoredCard,
  newCard: CheckedCard | undefined,
  route: Route,
): Promise<{ payment: PaymentRow; card: CardRow; retryableError: boolean }> {
  const { payment, card } = await beginAttempt(ctx, { payment: input, stored, newCard, route });

  const processor = route.connector ?? ctx.processors.get(payment.processor);
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
        testHeaders: route.connector ? undefined : input.testHeaders,
      })
    : { kind: 'error', retryable: true, message: `processor ${payment.processor} is not configured` };
  const unavailable = outcome.kind === 'timeout' || (outcome.kind === 'error' && outcome.retryable);
  if (route.circuit) ctx.circuits.record(route.circuit, !unavailable);

  const settlement = toSettlement(outcome);
  const settled = settlement ? await settlePayment(ctx, { payment, settlement }) : undefined;
  // Undefined: still pending (time-out) or a callback settled it first; either way read what is true now.
  const current =
    settled ?? (await findPayment(ctx.db, { merchantId: input.merchantId, livemode: payment.livemode }, payment.id))!;
  return { payment: current, card, retryableError: outcome.kind === 'error' && outcome.retryable };
}
