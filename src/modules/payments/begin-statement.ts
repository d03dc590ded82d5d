import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/db.js';
import { groupsCommits, hotGroup } from '../../storage/group-commit.js';
import { hot } from '../../storage/prepared.js';
import { statementTemplate } from '../../storage/statement-template.js';
import { runGrouped, unnestRows, type Grouped, type UnnestColumns } from '../../storage/statements.js';
import { requestSourcesFor } from '../state-machine.js';
import type { CardRow, PaymentRow } from './rows.js';

/**
 * The begin of a payment (part of the payments repository, which re-exports it): the pending attempt,
 * one statement alone or grouped with concurrent ones (src/storage/group-commit.ts).
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
  /** undefined: the merchant's default processor. */
  processor: string | undefined;
  method: string;
  /** Null: the payment request's. */
  captureDelayHours: number | null;
  payer: Record<string, unknown>;
  options: Record<string, unknown>;
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
 * settle then read all the merchant's payments (13,351 index entries per settle in a bench run).
 */
export async function insertAttempt(db: Db, input: NewAttempt): Promise<PaymentRow | undefined> {
  return groupsCommits(db) ? beginGroup(db, attemptShape(input)).run(input) : beginOne(db, input);
}

async function beginOne(db: Db, input: NewAttempt): Promise<PaymentRow | undefined> {
  const { now, expected, recoveryPoint: point } = input;
  const vault = input.card !== null && 'vault' in input.card ? input.card.vault : undefined;
  const storedId = input.card !== null && 'id' in input.card ? input.card.id : null;
  const legal = sql.join(requestSourcesFor('processing'));
  const amountMatches = expected
    ? sql`and r.amount = ${expected.minor}::bigint and r.currency = ${expected.currency}`
    : sql``;
  const cardInsert = vault
    ? sql`card as (
        insert into cards (merchant_id, livemode, token_hash, pan_ciphertext, key_id, fingerprint, brand, bin, last4,
                           exp_month, exp_year, holder_name, created_at)
        select ${input.merchantId}, false, ${vault.token_hash}, ${vault.pan_ciphertext}, ${vault.key_id},
               ${vault.fingerprint}, ${vault.brand}, ${vault.bin}, ${vault.last4},
               ${vault.exp_month}::int, ${vault.exp_year}::int, ${vault.holder_name}, ${now}
        from request
        returning id
      ),`
    : sql``;
  const cardId = vault ? sql`(select id from card)` : sql`${storedId}::bigint`;
  const recovery = point
    ? sql`,
      recovery as (
        update idempotency_keys set recovery_payment_id = (select id from pay), recovery_secret = ${point.sealedCardToken}
        where exists (select 1 from pay)
          and merchant_id = ${input.merchantId} and key = ${point.key} and claim_token = ${point.token}
        returning 1
      )`
    : sql``;
  const statement = sql<PaymentRow>`
      with request as (
        update payment_requests r set status = 'processing', updated_at = ${now}
        from merchants m
        where r.id = ${input.paymentRequestId} and r.merchant_id is not distinct from ${input.merchantId} and r.livemode = false
          and m.id = r.merchant_id
          and r.status in (${legal}) and (r.expires_at is null or r.expires_at > ${now})
          ${amountMatches}
        returning r.id, r.amount, r.currency, m.default_processor, ${REQUEST_OPTIONS}
      ),
      ${cardInsert}
      pay as (
        insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
                              card_id, capture_delay_hours, payer, options, created_at, updated_at)
        select ${input.merchantId}, false, request.id, 'pending', ${input.method},
               coalesce(${input.processor ?? null}, request.default_processor), request.amount, request.currency,
               ${cardId}, coalesce(${input.captureDelayHours}::int, request.capture_delay_hours),
               ${JSON.stringify(input.payer)}::jsonb, ${inheritedOptions(sql`given.options`)}, ${now}, ${now}
        from request, (select ${JSON.stringify(input.options)}::jsonb as options) given
        returning *
      )${recovery}
      select * from pay`;
  const { rows } = await db.executeQuery(hot('begin_attempt', statement.compile(db)));
  return rows[0];
}

/** The merchant's options of the payment request, which a payment inherits where its submission named none. */
const REQUEST_OPTIONS = sql`r.notify_url, r.success_url, r.failure_url, r.capture_delay_hours`;

/**
 * The payment's options: the submission's, with the request's URLs where it gave none (null), so the
 * payment records what applies to it: delivery and the 3-D Secure return read them from the payment
 * (docs/decisions.md "Merchant options of a payment").
 */
const inheritedOptions = (given: RawBuilder<unknown>) => sql`${given} || jsonb_build_object(
               'notifyUrl', coalesce(${given}->>'notifyUrl', request.notify_url),
               'successUrl', coalesce(${given}->>'successUrl', request.success_url),
               'failureUrl', coalesce(${given}->>'failureUrl', request.failure_url))`;

/** What an attempt's statement contains (the parts `beginOne` leaves out of the text when not needed). */
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

/** Concurrent attempts of one shape on a store that groups commits: one multi-row statement, each begun as `beginOne` would. */
function beginGroup(db: Db, shape: AttemptShape) {
  return hotGroup<NewAttempt, PaymentRow>(db, `begin ${JSON.stringify(shape)}`, () => {
    const columns = attemptColumns(shape);
    const template = statementTemplate((value) => groupedBeginStatement(db, shape, columns, value));
    return {
      one: (input) => beginOne(db, input),
      many: (inputs) => runGrouped(db, template, inputs.map(attemptValues), columns),
    };
  });
}

/** What the grouped begin takes of each attempt. */
function attemptColumns(shape: AttemptShape): UnnestColumns {
  return [
    ['merchantId', 'bigint'],
    ['paymentRequestId', 'bigint'],
    ['now', 'timestamptz'],
    ['processor', 'text'],
    ['method', 'text'],
    ['captureDelayHours', 'int'],
    ['payer', 'jsonb'],
    ['options', 'jsonb'],
    ...(shape.amount
      ? ([
          ['minor', 'bigint'],
          ['currency', 'text'],
        ] as const)
      : []),
    ...(shape.card === 'vault' ? VAULT_COLUMNS : shape.card === 'stored' ? ([['cardId', 'bigint']] as const) : []),
    ...(shape.recovery
      ? ([
          ['key', 'text'],
          ['token', 'text'],
          ['sealedCardToken', 'text'],
        ] as const)
      : []),
  ];
}

const VAULT_COLUMNS: UnnestColumns = [
  ['token_hash', 'text'],
  ['pan_ciphertext', 'text'],
  ['key_id', 'text'],
  ['fingerprint', 'text'],
  ['brand', 'text'],
  ['bin', 'text'],
  ['last4', 'text'],
  ['exp_month', 'int'],
  ['exp_year', 'int'],
  ['holder_name', 'text'],
];

function attemptValues(input: NewAttempt): Record<string, unknown> {
  const card = input.card;
  return {
    ...input,
    ...input.expected,
    ...input.recoveryPoint,
    ...(card !== null && 'vault' in card ? card.vault : {}),
    cardId: card !== null && 'id' in card ? card.id : null,
  };
}

/**
 * The begin statement for many attempts of one shape, each row under the same conditions as
 * `beginOne`. A new card is tied to its attempt by its token hash (unique). Two attempts on the same
 * request in one group: PostgreSQL moves the request once, so one attempt begins and the other gets
 * no row, as when two single begins race.
 */
function groupedBeginStatement(
  db: Db,
  shape: AttemptShape,
  columns: UnnestColumns,
  value: <T>(name: string) => T,
): CompiledQuery<Grouped<PaymentRow>> {
  const vault = shape.card === 'vault';
  const amountMatches = shape.amount ? sql`and r.amount = m.minor and r.currency = m.currency` : sql``;
  const cardInsert = vault
    ? sql`card as (
        insert into cards (merchant_id, livemode, token_hash, pan_ciphertext, key_id, fingerprint, brand, bin, last4,
                           exp_month, exp_year, holder_name, created_at)
        select m."merchantId", false, m.token_hash, m.pan_ciphertext, m.key_id, m.fingerprint, m.brand, m.bin, m.last4,
               m.exp_month, m.exp_year, m.holder_name, m.now
        from request join moves m on m.index = request.index
        returning id, token_hash
      ),`
    : sql``;
  const cardId = vault ? sql`card.id` : shape.card === 'stored' ? sql`m."cardId"` : sql`null::bigint`;
  const recovery = shape.recovery
    ? sql`,
      recovery as (
        update idempotency_keys k set recovery_payment_id = pay.id, recovery_secret = m."sealedCardToken"
        from pay join request on request.id = pay.payment_request_id join moves m on m.index = request.index
        where k.merchant_id = m."merchantId" and k.key = m.key and k.claim_token = m.token
        returning 1
      )`
    : sql``;
  return sql<Grouped<PaymentRow>>`
      with moves as ${unnestRows(columns, value)},
      request as (
        update payment_requests r set status = 'processing', updated_at = m.now
        from moves m, merchants mc
        where r.id = m."paymentRequestId" and r.merchant_id is not distinct from m."merchantId" and r.livemode = false
          and mc.id = r.merchant_id
          and r.status in (${sql.join(requestSourcesFor('processing'))}) and (r.expires_at is null or r.expires_at > m.now)
          ${amountMatches}
        returning m.index, r.id, r.amount, r.currency, mc.default_processor, ${REQUEST_OPTIONS}
      ),
      ${cardInsert}
      pay as (
        insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
                              card_id, capture_delay_hours, payer, options, created_at, updated_at)
        select m."merchantId", false, request.id, 'pending', m.method, coalesce(m.processor, request.default_processor),
               request.amount, request.currency, ${cardId}, coalesce(m."captureDelayHours", request.capture_delay_hours),
               m.payer, ${inheritedOptions(sql`m.options`)}, m.now, m.now
        from request join moves m on m.index = request.index${vault ? sql` join card on card.token_hash = m.token_hash` : sql``}
        returning *
      )${recovery}
      select pay.*, request.index as group_index from pay join request on request.id = pay.payment_request_id`.compile(
    db,
  );
}
