import { sql, type Expression } from 'kysely';
import { cached } from '../../lib/cached.js';
import type { Db } from '../../storage/db.js';
import { hotStatement, type Grouped, type HotStatement } from '../../storage/hot-statement.js';
import { requestSourcesFor } from '../state-machine.js';
import type { PaymentOptions, SubmittedPayer } from './schemas.js';
import type { CardRow, PaymentRow } from './rows.js';

/**
 * The begin of a payment (part of the payments repository, which re-exports it): the pending attempt,
 * one statement written once, run alone or grouped with concurrent ones (src/storage/hot-statement.ts).
 */

/** The vaulted columns of a card a submission stores. */
export type VaultedCard = Pick<
  CardRow,
  | 'token_hash'
  | 'pan_ciphertext'
  | 'key_id'
  | 'fingerprint'
  | 'brand'
  | 'bin'
  | 'last4'
  | 'exp_month'
  | 'exp_year'
  | 'holder_name'
>;

export interface NewAttempt {
  merchantId: number;
  paymentRequestId: number;
  /** h2h: the request must have this amount in this currency (minor -1 matches none). */
  expected?: { minor: number; currency: string };
  /** A card to vault with this attempt, or the id of one already stored; none for UPI. */
  card: { vault: VaultedCard } | { id: number } | null;
  livemode: boolean;
  /** undefined: the merchant's default processor. */
  processor: string | undefined;
  /** The processor connection the attempt goes through; null: the built-in sandbox processor. */
  connectionId: string | null;
  method: string;
  /** Null: the payment request's. */
  captureDelayHours: number | null;
  payer: SubmittedPayer;
  options: PaymentOptions;
  now: Date;
  /**
   * The idempotency claim the submission runs under: the same statement records this payment on it
   * as its recovery point, with the card token to show (sealed), so a retry after a crash resumes it.
   */
  recoveryPoint?: { key: string; token: string; sealedCardToken: string | null };
}

/**
 * One statement, so one round trip and atomic: the request moves to processing (only if it is open
 * and unexpired), a new card is vaulted, the pending payment is inserted, and the idempotency claim, if
 * any, records it as its recovery point. A request that is not
 * open inserts nothing (undefined back); a second live attempt on the same request hits the
 * one-active-payment index (unique violation 23505).
 *
 * A part a submission does not need (the amount check, the card insert, the recovery point) is left out
 * of the text rather than switched off by a parameter: each shape is its own prepared statement, whose
 * generic plan is then as tight as a custom one. PostgreSQL keeps planning every execution of a prepared
 * statement whose generic plan costs more than its custom plans, and one with parts switched off by
 * parameters did on a fresh store: the database then spent as much per payment as without preparing.
 *
 * The hot statements find their rows by primary key, and check the merchant with `is not distinct from`,
 * which no index can serve: with `merchant_id = $n` the generic plan of `transition`, made while the
 * tables were nearly empty, chose the (merchant_id, …) reporting index over the primary key, and every
 * settle then read all the merchant's payments.
 */
export async function insertAttempt(db: Db, input: NewAttempt): Promise<PaymentRow | undefined> {
  const shape = attemptShape(input);
  return cached(beginStatements, JSON.stringify(shape), () => beginStatement(shape)).run(db, attemptCall(input));
}

/** What an attempt's statement contains (the parts left out of the text when not needed). */
interface AttemptShape {
  amount: boolean;
  card: 'vault' | 'stored' | 'none';
  recovery: boolean;
}

const attemptShape = (input: NewAttempt): AttemptShape => ({
  amount: input.expected !== undefined,
  card: input.card === null ? 'none' : 'vault' in input.card ? 'vault' : 'stored',
  recovery: input.recoveryPoint !== undefined,
});

/** The attempt's values by the names the statement reads them (`calls.…`). */
function attemptCall(input: NewAttempt): Record<string, unknown> {
  const card = input.card;
  return {
    ...input,
    ...input.expected,
    ...input.recoveryPoint,
    ...(card !== null && 'vault' in card ? card.vault : {}),
    cardId: card !== null && 'id' in card ? card.id : null,
  };
}

/** One begin statement per shape (a handful in all), each alone or grouped (src/storage/hot-statement.ts). */
const beginStatements = new Map<string, HotStatement<PaymentRow>>();

/**
 * The begin of the attempts in `calls`, each under the request's conditions. A new card is tied to its
 * attempt by its token hash (unique). Two attempts on the same request in one group: PostgreSQL moves
 * the request once, so one attempt begins and the other gets no row, as when two single begins race.
 */
function beginStatement(shape: AttemptShape): HotStatement<PaymentRow> {
  return hotStatement<PaymentRow>({
    key: `begin ${JSON.stringify(shape)}`,
    prepared: 'begin_attempt',
    build: (db, calls) => {
      const value = calls.value;
      const merchantId = value('merchantId', 'bigint');
      const now = value('now', 'timestamptz');
      const vault = shape.card === 'vault';
      const amountMatches = shape.amount
        ? sql`and r.amount = ${value('minor', 'bigint')} and r.currency = ${value('currency', 'text')}`
        : sql``;
      const card = (): Partial<Record<keyof CardRow, Expression<unknown>>> => ({
        merchant_id: merchantId,
        livemode: value('livemode', 'boolean'),
        ...mapValues(VAULTED, (type, column) => value(column, type)),
        created_at: now,
      });
      const cardInsert = vault
        ? sql`card as (
        insert into cards ${columnList(card())}
        select ${valueList(card())}
        from request join calls on calls.index = request.index
        returning id, token_hash
      ),`
        : sql``;
      const payment: Partial<Record<keyof PaymentRow, Expression<unknown>>> = {
        merchant_id: merchantId,
        livemode: value('livemode', 'boolean'),
        payment_request_id: sql`request.id`,
        status: sql`'pending'`,
        method: value('method', 'text'),
        processor: sql`coalesce(${value('processor', 'text')}, request.default_processor)`,
        processor_connection_id: value('connectionId', 'text'),
        amount: sql`request.amount`,
        currency: sql`request.currency`,
        card_id: vault ? sql`card.id` : shape.card === 'stored' ? value('cardId', 'bigint') : sql`null::bigint`,
        capture_delay_hours: sql`coalesce(${value('captureDelayHours', 'int')}, request.capture_delay_hours)`,
        payer: value('payer', 'jsonb'),
        options: inheritedOptions(value('options', 'jsonb')),
        created_at: now,
        updated_at: now,
      };
      const recovery = shape.recovery
        ? sql`,
      recovery as (
        update idempotency_keys k set recovery_payment_id = pay.id, recovery_secret = ${value('sealedCardToken', 'text')}
        from pay join request on request.id = pay.payment_request_id join calls on calls.index = request.index
        where k.merchant_id = ${merchantId} and k.key = ${value('key', 'text')} and k.claim_token = ${value('token', 'text')}
        returning 1
      )`
        : sql``;
      return sql<Grouped<PaymentRow>>`
      with ${calls.cte},
      request as (
        update payment_requests r set status = 'processing', updated_at = ${now}
        from calls, merchants m
        where r.id = ${value('paymentRequestId', 'bigint')} and r.merchant_id is not distinct from ${merchantId} and r.livemode = ${value('livemode', 'boolean')}
          and m.id = r.merchant_id
          and r.status in (${sql.join(requestSourcesFor('processing'))}) and (r.expires_at is null or r.expires_at > ${now})
          ${amountMatches}
        returning calls.index, r.id, r.amount, r.currency, m.default_processor, ${REQUEST_OPTIONS}
      ),
      ${cardInsert}
      pay as (
        insert into payments ${columnList(payment)}
        select ${valueList(payment)}
        from request join calls on calls.index = request.index${vault ? sql` join card on card.token_hash = calls.token_hash` : sql``}
        returning *
      )${recovery}
      select pay.*, request.index as group_index from pay join request on request.id = pay.payment_request_id`.compile(
        db,
      );
    },
  });
}

/** The vaulted card's columns a begin inserts, with their SQL types. */
const VAULTED: Record<keyof VaultedCard, string> = {
  token_hash: 'text',
  pan_ciphertext: 'text',
  key_id: 'text',
  fingerprint: 'text',
  brand: 'text',
  bin: 'text',
  last4: 'text',
  exp_month: 'int',
  exp_year: 'int',
  holder_name: 'text',
};

const mapValues = <K extends string, V, W>(record: Record<K, V>, f: (value: V, key: K) => W) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value as V, key as K)])) as Record<K, W>;

/** `(a, b, …)` of an insert's columns and the values in the same order. */
const columnList = (row: Record<string, unknown>) =>
  sql`(${sql.join(Object.keys(row).map((column) => sql.id(column)))})`;
const valueList = (row: Record<string, Expression<unknown> | undefined>) => sql.join(Object.values(row));

/** The merchant's options of the payment request, which a payment inherits where its submission named none. */
const REQUEST_OPTIONS = sql`r.notify_url, r.success_url, r.failure_url, r.capture_delay_hours`;

/**
 * The payment's options: the submission's, with the request's URLs where it gave none (null), so the
 * payment records what applies to it: delivery and the 3-D Secure return read them from the payment
 * (docs/decisions.md "Merchant options of a payment").
 */
const inheritedOptions = (given: Expression<unknown>) => sql`${given} || jsonb_build_object(
               'notifyUrl', coalesce(${given}->>'notifyUrl', request.notify_url),
               'successUrl', coalesce(${given}->>'successUrl', request.success_url),
               'failureUrl', coalesce(${given}->>'failureUrl', request.failure_url))`;
