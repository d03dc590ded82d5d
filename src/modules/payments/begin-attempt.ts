import { sql } from 'kysely';
import { AppError, conflict, invalidFormat, notFound } from '../../errors.js';
import { sha256Hex } from '../../lib/crypto.js';
import { normalizeCurrency, toMinor } from '../../lib/money.js';
import { vaultFields, type CheckedCard } from '../cards/checked-card.js';
import { assertOpen } from '../payment-requests/status.js';
import { requestSourcesFor } from '../state-machine.js';
import type { CardRow, PaymentRow } from './repository.js';
import type { CardPaymentInput, PaymentDeps } from './submit-card-payment.js';

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
 * and unexpired), a new card is vaulted, the pending payment is inserted (the reconciliation sweep
 * settles it if no answer comes, see jobs.ts), and the submission's idempotency claim records it as
 * its recovery point (with the new card token, sealed), so a retry after a crash resumes this payment. A request that is not open inserts nothing; a second
 * live attempt on the same request hits the one-active-payment index. Both answer 409.
 */
export async function beginAttempt(
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
  const point = input.recoveryPoint;
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
      recovery as (
        update idempotency_keys set recovery_payment_id = (select id from pay), recovery_secret = ${point && stored.token ? deps.vault.seal(stored.token) : null}
        where ${point !== undefined} and exists (select 1 from pay)
          and merchant_id = ${input.merchantId} and key = ${point?.key ?? null} and claim_token = ${point?.token ?? null}
        returning 1
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


const alreadyInProgress = () =>
  conflict('A payment for this payment request is already in progress or has succeeded', undefined, { transient: true });
