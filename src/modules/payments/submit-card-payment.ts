import { AppError, conflict, invalidFormat, notFound } from '../../errors.js';
import { sql } from 'kysely';
import type { Clock } from '../../lib/clock.js';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';
import { normalizeCurrency, toMinor } from '../../lib/money.js';
import type { ProcessorRegistry } from '../../processors/registry.js';
import type { AuthorizeOutcome } from '../../processors/types.js';
import type { Db } from '../../storage/db.js';
import type { KeyMode } from '../../storage/schema.js';
import type { Vault } from '../cards/vault.js';
import { bin, cardBrand, cvvLength, isExpired, last4, parseExpiration, passesLuhn } from '../cards/card-number.js';
import { findPayment, type CardRow, type PaymentRow } from './repository.js';
import { settlePayment, type Settlement } from './settle.js';
import { requestSourcesFor } from '../state-machine.js';
import { assertOpen } from '../payment-requests/status.js';

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
}

export interface CardPaymentResult {
  payment: PaymentRow;
  card: CardRow;
  /** Shown once, when the card was accepted (not declined). */
  cardToken: string | null;
}

export const RECONCILE_JOB = 'payment.reconcile';
/** When the reconcile job first asks the processor about a payment still pending. */
const RECONCILE_AFTER_MS = 60_000;
const CARD_TOKEN_PREFIX = 'ctok_';

/**
 * Card and stored-card payments. The order is deliberate: everything that can be rejected without
 * side effects is checked first; the payment row is committed (pending) before the processor is
 * called, so nothing acknowledged is lost; the processor gets the payment id as its idempotency
 * reference, so a retry cannot charge twice; a durable reconcile job settles any payment the
 * processor did not answer in time.
 */
export async function submitCardPayment(deps: PaymentDeps, input: CardPaymentInput): Promise<CardPaymentResult> {
  const now = deps.clock.now();
  if (input.mode === 'live') {
    if (input.isSandbox === true) throw invalidFormat('isSandbox', true, 'A live API key cannot make sandbox payments');
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'No live card processor is configured for this account; use a test key with the sandbox processors');
  }
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

function result(payment: PaymentRow, card: CardRow, token: string | null): CardPaymentResult {
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

/**
 * Why a payment could not begin, read only on that cold path, in the order a client fixes things:
 * the request must exist, be open, and (h2h) match amount and unit; otherwise a concurrent
 * attempt got there first.
 */
async function whyNotBegun(deps: PaymentDeps, input: CardPaymentInput, now: Date): Promise<AppError> {
  const request = await deps.db
    .selectFrom('payment_requests')
    .select(['id', 'amount', 'currency', 'status', 'expires_at'])
    .where('id', '=', input.paymentRequestId)
    .where('merchant_id', '=', input.merchantId)
    .where('livemode', '=', false)
    .executeTakeFirst();
  if (!request) return notFound('payment request');
  try {
    assertOpen(request, now, 'be paid');
  } catch (error) {
    return error as AppError;
  }
  if (input.expected) {
    if (input.expected.unit.toUpperCase() === request.currency && toMinor(input.expected.amount, request.currency) !== request.amount) {
      return invalidFormat('amount', input.expected.amount, 'amount must equal the payment request amount');
    }
    if (input.expected.unit.toUpperCase() !== request.currency) {
      return invalidFormat('unit', input.expected.unit, `unit must equal the payment request currency ${request.currency}`);
    }
  }
  return alreadyInProgress();
}

/** The h2h amount in minor units of the stated unit; -1 (matches no request) when the unit is no currency. */
function expectedMinor(expected: { amount: number; unit: string }): { minor: number; currency: string } {
  const currency = normalizeCurrency(expected.unit);
  const minor = currency === undefined ? undefined : toMinor(expected.amount, currency);
  return { minor: minor ?? -1, currency: currency ?? '' };
}

/**
 * One statement, so one round trip and atomic: the request moves to processing (only if it is open
 * and unexpired), a new card is vaulted, the pending payment is inserted, and the reconcile job that
 * settles it if no answer comes is scheduled. A request that is not open inserts nothing; a second
 * live attempt on the same request hits the one-active-payment index. Both answer 409.
 */
async function beginAttempt(
  deps: PaymentDeps,
  input: CardPaymentInput,
  stored: StoredCard,
  newCard: CheckedCard | undefined,
  processor: string | undefined,
  now: Date,
): Promise<{ payment: PaymentRow; card: CardRow }> {
  const vaulted = newCard ? { token_hash: sha256Hex(stored.token!), ...vaultFields(deps.vault, newCard) } : undefined;
  const v = vaulted ?? ({} as Partial<NonNullable<typeof vaulted>>);
  const legal = sql.join(requestSourcesFor('processing'));
  const expected = input.expected ? expectedMinor(input.expected) : undefined;
  let rows: PaymentRow[];
  try {
    ({ rows } = await sql<PaymentRow>`
      with request as (
        update payment_requests r set status = 'processing', updated_at = ${now}
        from merchants m
        where r.id = ${input.paymentRequestId} and r.merchant_id = ${input.merchantId} and r.livemode = false
          and m.id = r.merchant_id
          and r.status in (${legal}) and (r.expires_at is null or r.expires_at > ${now})
          and (${expected === undefined} or (r.amount = ${expected?.minor ?? null}::bigint and r.currency = ${expected?.currency ?? null}))
        returning r.id, r.amount, r.currency, m.default_processor
      ),
      card as (
        insert into cards (merchant_id, livemode, token_hash, pan_ciphertext, key_id, fingerprint, brand, bin, last4,
                           exp_month, exp_year, holder_name, created_at)
        select ${input.merchantId}, false, ${v.token_hash ?? null}, ${v.pan_ciphertext ?? null}, ${v.key_id ?? null},
               ${v.fingerprint ?? null}, ${v.brand ?? null}, ${v.bin ?? null}, ${v.last4 ?? null},
               ${v.exp_month ?? null}::int, ${v.exp_year ?? null}::int, ${v.holder_name ?? null}, ${now}
        from request where ${vaulted !== undefined}
        returning id
      ),
      pay as (
        insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
                              card_id, capture_delay_hours, payer, options, created_at, updated_at)
        select ${input.merchantId}, false, request.id, 'pending', ${input.source.kind},
               coalesce(${processor ?? null}, request.default_processor), request.amount, request.currency,
               coalesce((select id from card), ${stored.row?.id ?? null}::bigint), ${input.captureDelayHours},
               ${JSON.stringify(input.payer)}::jsonb, ${JSON.stringify(input.options)}::jsonb, ${now}, ${now}
        from request
        returning *
      ),
      reconcile as (
        insert into jobs (kind, payload, run_at, merchant_id, dedupe_key, max_attempts)
        select ${RECONCILE_JOB}, json_build_object('paymentId', pay.id, 'merchantId', pay.merchant_id)::jsonb,
               ${new Date(now.getTime() + RECONCILE_AFTER_MS)}, pay.merchant_id, ${RECONCILE_JOB} || ':' || pay.id, 12
        from pay
        on conflict (dedupe_key) do nothing
      )
      select * from pay`.execute(deps.db));
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw alreadyInProgress();
    throw error;
  }
  const payment = rows[0];
  if (!payment) throw await whyNotBegun(deps, input, now);
  const card: CardRow = stored.row ?? {
    ...vaulted!,
    id: payment.card_id!,
    merchant_id: input.merchantId,
    livemode: false,
    usable: false,
    created_at: now,
  };
  return { payment, card };
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

const alreadyInProgress = () => conflict('A payment for this payment request is already in progress or has succeeded');

/** The card for this submission: already vaulted (token, or a failover's second attempt) or about to be. */
interface StoredCard {
  row?: CardRow;
  pan: string;
  cvv?: string;
  /** The new card token when this submission vaults the card. */
  token: string | null;
}

interface CheckedCard {
  number: string;
  cvv: string;
  holder: string;
  brand: string;
  expiry: { month: number; year: number };
}

/** Rejects what no processor should see: Luhn failure, bad or past expiry, CVV length for the brand. */
function checkCard(source: Extract<CardSource, { kind: 'card' }>, now: Date): CheckedCard {
  const invalid = (field: string, reason: string) =>
    new AppError('INVALID_CARD', `The card ${field} is invalid: ${reason}`, { details: { field, reason } });
  if (!/^\d+$/.test(source.number) || !passesLuhn(source.number)) throw invalid('number', 'failed the Luhn check');
  const expiry = parseExpiration(source.expiration);
  if (!expiry) throw invalid('expiration', 'month must be 01-12');
  if (isExpired(expiry, now)) throw invalid('expiration', 'card has expired');
  const brand = cardBrand(source.number);
  if (source.cvv.length !== cvvLength(brand)) throw invalid('cvv', `${brand} cards have a ${cvvLength(brand)}-digit CVV`);
  return { number: source.number, cvv: source.cvv, holder: source.holder, brand, expiry };
}

function vaultFields(vault: Vault, card: CheckedCard) {
  const { ciphertext, keyId } = vault.encrypt(card.number);
  return {
    pan_ciphertext: ciphertext,
    key_id: keyId,
    fingerprint: vault.fingerprint(card.number),
    brand: card.brand,
    bin: bin(card.number),
    last4: last4(card.number),
    exp_month: card.expiry.month,
    exp_year: card.expiry.year,
    holder_name: card.holder,
  };
}
