import { AppError, invalidFormat, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';
import type { ProcessorRegistry } from '../../processors/registry.js';
import type { AuthorizeOutcome } from '../../processors/types.js';
import type { Db } from '../../storage/db.js';
import type { KeyMode } from '../../storage/schema.js';
import { isExpired } from '../cards/card-number.js';
import { checkCard, type CheckedCard } from '../cards/checked-card.js';
import type { Vault } from '../cards/vault.js';
import { beginAttempt, type StoredCard } from './begin-attempt.js';
import { resumeCardPayment } from './resume-card-payment.js';
import { findPayment, type CardRow, type PaymentRow } from './repository.js';
import { settlePayment, type Settlement } from './settle.js';

export interface PaymentDeps {
  db: Db;
  clock: Clock;
  vault: Vault;
  processors: ProcessorRegistry;
  /** Where the 3-D Secure page sends the payer back when the merchant gave no successUrl. */
  checkoutUrl: string;
}

export type CardSource =
  | { kind: 'card'; number: string; expiration: string; cvv: string; holder: string }
  | { kind: 'token'; token: string };

export interface CardPaymentInput {
  merchantId: number;
  mode: KeyMode;
  paymentRequestId: number;
  /** A processor name, or undefined for the merchant's default (h2h). */
  processor: string | undefined;
  /** h2h only: one new attempt on the other processor after a retryable processor error. */
  failover: boolean;
  source: CardSource;
  payer: Record<string, unknown>;
  /** h2h variants carry amount and unit, which must match the payment request. */
  expected?: { amount: number; unit: string };
  captureDelayHours: number;
  is3ds: boolean;
  isSandbox?: boolean;
  options: Record<string, unknown>;
  /** Sandbox test controls forwarded to the sandbox network (test mode only). */
  testHeaders?: Record<string, string>;
  /** The idempotency claim this submission runs under, and what an interrupted earlier run of it committed. */
  recoveryPoint?: RecoveryPoint;
}

export interface RecoveryPoint {
  key: string;
  token: string;
  resume?: { paymentId: number; cardToken: string | null };
}

export interface CardPaymentResult {
  payment: PaymentRow;
  card: CardRow;
  /** Shown once, when the card was accepted (not declined). */
  cardToken: string | null;
}

const CARD_TOKEN_PREFIX = 'ctok_';

/**
 * Card and stored-card payments. The order is deliberate: everything that can be rejected without
 * side effects is checked first; the payment row is committed (pending) before the processor is
 * called, so nothing acknowledged is lost; the processor gets the payment id as its idempotency
 * reference, so a retry cannot charge twice; the reconciliation sweep (jobs.ts) settles any payment the
 * processor did not answer in time.
 */
export async function submitCardPayment(deps: PaymentDeps, input: CardPaymentInput): Promise<CardPaymentResult> {
  const now = deps.clock.now();
  if (input.mode === 'live') {
    if (input.isSandbox === true) throw invalidFormat('isSandbox', true, 'A live API key cannot make sandbox payments');
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'No live card processor is configured for this account; use a test key with the sandbox processors');
  }
  const resumed = input.recoveryPoint?.resume ? await resumeCardPayment(deps, input.merchantId, input.recoveryPoint.resume) : undefined;
  if (resumed) return resumed;
  const card = input.source.kind === 'card' ? checkCard(input.source, now) : undefined;
  const stored: StoredCard = card
    ? { pan: card.number, cvv: card.cvv, token: `${CARD_TOKEN_PREFIX}${randomBase62(32)}` }
    : await storedCard(deps, input.merchantId, (input.source as { token: string }).token, now);

  const first = await attempt(deps, input, stored, card, input.processor);
  if (first.retryableError && input.failover) {
    const alternative = deps.processors.alternative(first.payment.processor);
    if (alternative) {
      // The first attempt created nothing at its processor; the card row is reused, not stored twice.
      const second = await attempt(deps, input, { ...stored, row: first.card }, undefined, alternative.name);
      return result(second.payment, second.card, stored.token);
    }
  }
  return result(first.payment, first.card, stored.token);
}

async function storedCard(deps: PaymentDeps, merchantId: number, token: string, now: Date): Promise<StoredCard> {
  const row = await deps.db
    .selectFrom('cards')
    .selectAll()
    .where('token_hash', '=', sha256Hex(token))
    .where('merchant_id', '=', merchantId)
    .where('livemode', '=', false)
    .where('usable', '=', true)
    .executeTakeFirst();
  if (!row) throw notFound('card token');
  if (isExpired({ month: row.exp_month, year: row.exp_year }, now)) {
    throw new AppError('INVALID_CARD', 'The stored card has expired', { details: { field: 'token', reason: 'card expired' } });
  }
  return { row, pan: deps.vault.decrypt(row.pan_ciphertext, row.key_id), token: null };
}

export function result(payment: PaymentRow, card: CardRow, token: string | null): CardPaymentResult {
  const accepted = payment.status !== 'failed' && payment.status !== 'canceled';
  return { payment, card, cardToken: accepted ? token : null };
}

/** One authorization attempt on one processor (the merchant's default when none is named): commit pending, call, settle. */
async function attempt(
  deps: PaymentDeps,
  input: CardPaymentInput,
  stored: StoredCard,
  newCard: CheckedCard | undefined,
  processorName: string | undefined,
): Promise<{ payment: PaymentRow; card: CardRow; retryableError: boolean }> {
  const now = deps.clock.now();
  const { payment, card } = await beginAttempt(deps, input, stored, newCard, processorName, now);

  const processor = deps.processors.get(payment.processor);
  const outcome: AuthorizeOutcome = processor
    ? await processor.authorize({
        reference: `pay_${payment.id}`,
        amount: payment.amount,
        currency: payment.currency,
        capture: input.captureDelayHours === 0,
        card: { number: stored.pan, expMonth: card.exp_month, expYear: card.exp_year, cvv: stored.cvv, holder: card.holder_name },
        threeDS: { force: input.is3ds, returnUrl: returnUrl(deps, input) },
        testHeaders: input.testHeaders,
      })
    : { kind: 'error', retryable: true, message: `processor ${payment.processor} is not configured` };

  const settlement = toSettlement(outcome);
  const settled = settlement ? await settlePayment(deps.db, deps.clock.now(), payment, settlement) : undefined;
  // Undefined: still pending (time-out) or a callback settled it first; either way read what is true now.
  const current = settled ?? (await findPayment(deps.db, { merchantId: input.merchantId, livemode: false }, payment.id))!;
  return { payment: current, card, retryableError: outcome.kind === 'error' && outcome.retryable };
}

function toSettlement(outcome: AuthorizeOutcome): Settlement | undefined {
  switch (outcome.kind) {
    case 'approved':
      return { kind: 'approved', processorPaymentId: outcome.processorPaymentId, captured: outcome.captured };
    case 'declined':
      return { kind: 'declined', processorPaymentId: outcome.processorPaymentId, declineCode: outcome.declineCode, declineReason: outcome.declineReason };
    case 'challenge':
      return { kind: 'challenge', processorPaymentId: outcome.processorPaymentId, challengeUrl: outcome.challengeUrl };
    case 'pending':
      return { kind: 'pending', processorPaymentId: outcome.processorPaymentId };
    case 'error':
      return { kind: 'failed', processorPaymentId: null, failureCode: 'processor_error', declineReason: outcome.message };
    case 'timeout':
      return undefined;
  }
}

function returnUrl(deps: PaymentDeps, input: CardPaymentInput): string {
  const given = input.options.successUrl;
  return typeof given === 'string' && given ? given : `${deps.checkoutUrl}/main?requestId=${input.paymentRequestId}`;
}


