import { type AppError, conflict, invalidFormat, notFound } from '../../errors.js';
import { sha256Hex } from '../../lib/crypto.js';
import { normalizeCurrency, toMinor } from '../../lib/money.js';
import { vaultFields, type CheckedCard } from '../cards/index.js';
import { assertOpen, findPaymentRequest } from '../payment-requests/index.js';
import { findPayment, insertAttempt, type CardRow, type PaymentRow } from './repository.js';
import type { Route } from './routing.js';
import type { CardPaymentInput, PaymentContext } from './types.js';

/** The card for this submission: already vaulted (token, or a failover's second attempt) or about to be. */
export interface StoredCard {
  row?: CardRow;
  pan: string;
  cvv?: string;
  /** The new card token when this submission vaults the card. */
  token: string | null;
}

/**
 * Why a payment could not begin, read only on that cold path, in the order a client fixes things:
 * the request must exist, be open, and (h2h) match amount and unit; otherwise a concurrent
 * attempt got there first.
 */
async function whyNotBegun(
  ctx: PaymentContext,
  input: Pick<CardPaymentInput, 'merchantId' | 'mode' | 'paymentRequestId' | 'expected'>,
  now: Date,
): Promise<AppError> {
  const request = await findPaymentRequest(
    ctx.db,
    { merchantId: input.merchantId, livemode: input.mode === 'live' },
    input.paymentRequestId,
  );
  if (!request) return notFound('payment request');
  try {
    assertOpen(request, now, 'be paid');
  } catch (error) {
    return error as AppError;
  }
  if (input.expected) {
    if (
      input.expected.unit.toUpperCase() === request.currency &&
      toMinor(input.expected.amount, request.currency) !== request.amount
    ) {
      return invalidFormat('amount', input.expected.amount, 'amount must equal the payment request amount');
    }
    if (input.expected.unit.toUpperCase() !== request.currency) {
      return invalidFormat(
        'unit',
        input.expected.unit,
        `unit must equal the payment request currency ${request.currency}`,
      );
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
 * Commits the pending attempt in one statement (payments/repository.ts insertAttempt); the
 * reconciliation sweep settles it if no answer comes (jobs.ts). A request that is not open, or a
 * second live attempt on the same request, answers 409.
 */
export async function beginAttempt(
  ctx: PaymentContext,
  input: {
    payment: CardPaymentInput;
    stored: StoredCard;
    newCard: CheckedCard | undefined;
    route: Route;
  },
): Promise<{ payment: PaymentRow; card: CardRow }> {
  const { stored, newCard } = input;
  const now = ctx.clock.now();
  const vaulted = newCard ? { token_hash: sha256Hex(stored.token!), ...vaultFields(ctx.vault, newCard) } : undefined;
  let payment: PaymentRow | undefined;
  try {
    payment = await insertAttempt(ctx.db, {
      merchantId: input.payment.merchantId,
      paymentRequestId: input.payment.paymentRequestId,
      expected: input.payment.expected ? expectedMinor(input.payment.expected) : undefined,
      card: vaulted ? { vault: vaulted } : { id: stored.row!.id },
      livemode: input.payment.mode === 'live',
      processor: input.route.processorName,
      connectionId: input.route.connectionId,
      method: input.payment.source.kind,
      captureDelayHours: input.payment.captureDelayHours,
      payer: input.payment.payer,
      options: input.payment.options,
      now,
      recoveryPoint: input.payment.recoveryPoint && {
        key: input.payment.recoveryPoint.key,
        token: input.payment.recoveryPoint.token,
        sealedCardToken: stored.token ? ctx.vault.seal(stored.token) : null,
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw alreadyInProgress();
    throw error;
  }
  if (!payment) throw await whyNotBegun(ctx, input.payment, now);
  const card: CardRow = stored.row ?? {
    ...vaulted!,
    id: payment.card_id!,
    merchant_id: input.payment.merchantId,
    livemode: input.payment.mode === 'live',
    usable: false,
    created_at: now,
  };
  return { payment, card };
}

const alreadyInProgress = () => conflict('A payment for this payment request is already in progress or has succeeded');

/**
 * The pending attempt of a payment without a card (UPI, wallet), committed like a card's (with its
 * recovery point) before its processor is called; the same refusals when it cannot begin. A retry of
 * a submission that already committed its payment gets that payment back (`resumed`), and must not
 * call the processor again.
 */
export async function beginAttemptWithoutCard(
  ctx: PaymentContext,
  input: Pick<
    CardPaymentInput,
    'merchantId' | 'mode' | 'paymentRequestId' | 'expected' | 'payer' | 'options' | 'recoveryPoint'
  > & {
    processor: string;
    method: 'upi' | 'wallet';
    captureDelayHours: number | null;
  },
): Promise<{ payment: PaymentRow; resumed: boolean }> {
  const resume = input.recoveryPoint?.resume;
  const scope = { merchantId: input.merchantId, livemode: input.mode === 'live' };
  const earlier = resume ? await findPayment(ctx.db, scope, resume.paymentId) : undefined;
  if (earlier) return { payment: earlier, resumed: true };
  const now = ctx.clock.now();
  let payment: PaymentRow | undefined;
  try {
    payment = await insertAttempt(ctx.db, {
      ...input,
      livemode: scope.livemode,
      connectionId: null,
      expected: input.expected ? expectedMinor(input.expected) : undefined,
      card: null,
      now,
      recoveryPoint: input.recoveryPoint && { ...input.recoveryPoint, sealedCardToken: null },
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw alreadyInProgress();
    throw error;
  }
  if (!payment) throw await whyNotBegun(ctx, input, now);
  return { payment, resumed: false };
}
