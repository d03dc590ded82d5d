import { sql, type CompiledQuery, type Expression, type QueryCreator } from 'kysely';
import { insertJob } from '../../jobs/queue.js';
import { dedupeKey } from '../../jobs/catalog.js';
import type { AmountRange } from '../../lib/amount-range.js';
import type { MerchantScope as Scope } from '../../lib/scope.js';
import type { Db } from '../../storage/db.js';
import { groupCommit, groupsCommits, groupStats, type GroupCommit } from '../../storage/group-commit.js';
import { hot } from '../../storage/prepared.js';
import { unnestRows, unnestValues, type UnnestColumns } from '../../storage/statements.js';
import { statementTemplate, type StatementTemplate } from '../../storage/statement-template.js';
import type { Database, PaymentStatus } from '../../storage/schema.js';
import { withEvent } from '../events/index.js';
import { paymentSourcesFor, requestSourcesFor, requestStatusFor, type PaymentPatch } from '../state-machine.js';
import type { PaymentEventType } from './events.js';
import { announceStatusChange } from './status-changes.js';
import { paymentView } from './view.js';

/** Every query of the payments module: payments, their cards and refunds. The caller owns the transaction. */

export type { CardRow, PaymentRow } from './rows.js';
import type { CardRow, PaymentRow } from './rows.js';
export type { Scope };

export async function findPayment(db: Db, scope: Scope, paymentId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** By id alone: for the payer's browser coming back from a 3-D Secure challenge (the link is signed). */
export async function findPaymentById(db: Db, paymentId: number) {
  return db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst();
}

export interface PaymentFilter extends AmountRange {
  /** Rows with a smaller id than this (the cursor position). */
  beforeId?: number;
  paymentRequestId?: number;
  status?: PaymentStatus;
  createdFrom?: Date;
  createdTo?: Date;
  /** Of the payment's request: the merchant's reference, exactly. */
  reference?: string;
  /** Of the payment's request. */
  customerId?: number;
}

/** Newest first. */
export async function listPayments(db: Db, scope: Scope, filter: PaymentFilter, limit: number) {
  let query = db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.paymentRequestId !== undefined) query = query.where('payment_request_id', '=', filter.paymentRequestId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<=', filter.createdTo);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  if (filter.minAmount !== undefined) query = query.where('amount', '>=', filter.minAmount);
  if (filter.maxAmount !== undefined) query = query.where('amount', '<=', filter.maxAmount);
  if (filter.reference !== undefined || filter.customerId !== undefined) {
    // Request fields: read, never written, here (the payment-requests module owns the table).
    let requests = db
      .selectFrom('payment_requests')
      .select('id')
      .where('merchant_id', '=', scope.merchantId)
      .where('livemode', '=', scope.livemode);
    if (filter.reference !== undefined) requests = requests.where('reference', '=', filter.reference);
    if (filter.customerId !== undefined) requests = requests.where('customer_id', '=', filter.customerId);
    query = query.where('payment_request_id', 'in', requests);
  }
  return query.orderBy('id', 'desc').limit(limit).execute();
}

export async function findCard(db: Db, cardId: number | null) {
  if (cardId === null) return undefined;
  return db.selectFrom('cards').selectAll().where('id', '=', cardId).executeTakeFirst();
}

/** The cards of several payments in one query, by id. */
export async function findCardsOf(db: Db, payments: PaymentRow[]): Promise<Map<number, CardRow>> {
  const ids = [...new Set(payments.flatMap((p) => (p.card_id === null ? [] : [p.card_id])))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('cards').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((card) => [card.id, card]));
}

/** A stored card a test-mode payment may use again: by token hash, the merchant's, approved once. */
export async function findUsableCard(db: Db, merchantId: number, tokenHash: string) {
  return db
    .selectFrom('cards')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('merchant_id', '=', merchantId)
    .where('livemode', '=', false)
    .where('usable', '=', true)
    .executeTakeFirst();
}

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
  captureDelayHours: number;
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
        returning r.id, r.amount, r.currency, m.default_processor
      ),
      ${cardInsert}
      pay as (
        insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
                              card_id, capture_delay_hours, payer, options, created_at, updated_at)
        select ${input.merchantId}, false, request.id, 'pending', ${input.method},
               coalesce(${input.processor ?? null}, request.default_processor), request.amount, request.currency,
               ${cardId}, ${input.captureDelayHours},
               ${JSON.stringify(input.payer)}::jsonb, ${JSON.stringify(input.options)}::jsonb, ${now}, ${now}
        from request
        returning *
      )${recovery}
      select * from pay`;
  const { rows } = await db.executeQuery(hot('begin_attempt', statement.compile(db)));
  return rows[0];
}

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

const beginGroups = new WeakMap<Db, Map<string, GroupCommit<NewAttempt, PaymentRow>>>();

/** Concurrent attempts of one shape on a store that groups commits: one multi-row statement, each begun as `beginOne` would. */
function beginGroup(db: Db, shape: AttemptShape) {
  return made(
    made(beginGroups, db, () => new Map()),
    JSON.stringify(shape),
    () => {
      const columns = attemptColumns(shape);
      const template = statementTemplate((value) => groupedBeginStatement(db, shape, columns, value));
      return groupCommit<NewAttempt, PaymentRow>({
        ...GROUPING,
        stats: groupStats(db)!,
        one: (input) => beginOne(db, input),
        many: async (inputs) => {
          const values = unnestValues(inputs.map(attemptValues), columns);
          const { rows } = await db.executeQuery(template.fill(values));
          return answersByIndex(rows, inputs.length);
        },
      });
    },
  );
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
): CompiledQuery<GroupedRow> {
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
  return sql<GroupedRow>`
      with moves as ${unnestRows(columns, value)},
      request as (
        update payment_requests r set status = 'processing', updated_at = m.now
        from moves m, merchants mc
        where r.id = m."paymentRequestId" and r.merchant_id is not distinct from m."merchantId" and r.livemode = false
          and mc.id = r.merchant_id
          and r.status in (${sql.join(requestSourcesFor('processing'))}) and (r.expires_at is null or r.expires_at > m.now)
          ${amountMatches}
        returning m.index, r.id, r.amount, r.currency, mc.default_processor
      ),
      ${cardInsert}
      pay as (
        insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
                              card_id, capture_delay_hours, payer, options, created_at, updated_at)
        select m."merchantId", false, request.id, 'pending', m.method, coalesce(m.processor, request.default_processor),
               request.amount, request.currency, ${cardId}, m."captureDelayHours", m.payer, m.options, m.now, m.now
        from request join moves m on m.index = request.index${vault ? sql` join card on card.token_hash = m.token_hash` : sql``}
        returning *
      )${recovery}
      select pay.*, request.index as group_index from pay join request on request.id = pay.payment_request_id`.compile(
    db,
  );
}

/** Each call's row at its place in the group (`group_index`), undefined where its part did not apply. */
function answersByIndex(rows: GroupedRow[], count: number): Array<PaymentRow | undefined> {
  const answers = Array.from({ length: count }, (): PaymentRow | undefined => undefined);
  for (const { group_index: index, ...row } of rows) answers[index] = row;
  return answers;
}

/** Records a processor's transaction id on a payment that is still waiting for its outcome. */
export async function notePendingTransaction(db: Db, paymentId: number, processorPaymentId: string, now: Date) {
  return db
    .updateTable('payments')
    .set({ processor_payment_id: processorPaymentId, updated_at: now })
    .where('id', '=', paymentId)
    .where('processor_payment_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

const EVENT_FOR: Partial<Record<PaymentStatus, PaymentEventType>> = {
  succeeded: 'payment.succeeded',
  authorized: 'payment.authorized',
  failed: 'payment.failed',
  requires_action: 'payment.requires_action',
  canceled: 'payment.canceled',
};

/**
 * Moves a payment to `to` and, in the same single statement (so atomically, and in one round trip
 * on the hot path): its payment request along with it, its card usable once approved, the outbox
 * event, and the scheduled capture of a delayed-capture authorization. Every update is conditional
 * on the state machine's legal sources; when the payment's own update does not apply, nothing does.
 * The only writer of a payment's status after its pending insert: each move is announced to this
 * process (status-changes.ts; the metrics count it) once it has committed.
 */
export async function transition(
  db: Db,
  now: Date,
  payment: PaymentRow,
  to: PaymentStatus,
  patch: PaymentPatch,
): Promise<PaymentRow | undefined> {
  const next: PaymentRow = { ...payment, ...patch, status: to, updated_at: now };
  const columns = (Object.keys(patch) as Array<keyof PaymentPatch>).filter((c) => patch[c] !== undefined).sort();
  const move: Move = {
    ...patch,
    now,
    id: payment.id,
    merchantId: payment.merchant_id,
    amountPaid: next.amount_captured,
    payload: paymentView(next, undefined),
  };
  const row = groupsCommits(db) ? await settleGroup(db, to, columns).run(move) : await settleOne(db, to, columns, move);
  if (row) announceStatusChange(db, row);
  return row;
}

/** The values of one settle: the patch and what the statement derives from the payment. */
type Move = PaymentPatch & {
  now: Date;
  id: number;
  merchantId: number;
  amountPaid: number;
  payload: PaymentEventPayload;
};
type PaymentEventPayload = ReturnType<typeof paymentView>;

/** One compiled settle statement per target status and set of patched columns (a handful in all). */
const settleTemplates = new Map<string, StatementTemplate<PaymentRow>>();

async function settleOne(db: Db, to: PaymentStatus, columns: Array<keyof PaymentPatch>, move: Move) {
  const template = made(settleTemplates, shapeOf(to, columns), () =>
    statementTemplate((value) => settleStatement(db, to, columns, value)),
  );
  const { rows } = await db.executeQuery(hot('settle', template.fill(move)));
  return rows[0];
}

const shapeOf = (to: PaymentStatus, columns: Array<keyof PaymentPatch>) => `${to}:${columns.join(',')}`;

/** The value of `key` in `map`, made and kept on first use. */
function made<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: () => NoInfer<V>,
): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/**
 * Concurrent settles of one shape on a store that groups commits (src/storage/group-commit.ts): one
 * group per store and shape, whose multi-row statement moves each payment exactly as `settleOne` would.
 */
const settleGroups = new WeakMap<Db, Map<string, GroupCommit<Move, PaymentRow>>>();
const groupedTemplates = new Map<string, StatementTemplate<GroupedRow>>();

/** A row of a grouped statement: the payment, and which call of the group it answers. */
type GroupedRow = PaymentRow & { group_index: number };

function settleGroup(db: Db, to: PaymentStatus, columns: Array<keyof PaymentPatch>) {
  const shape = shapeOf(to, columns);
  return made(
    made(settleGroups, db, () => new Map()),
    shape,
    () => {
      const template = made(groupedTemplates, shape, () =>
        statementTemplate((value) => groupedSettleStatement(db, to, columns, value)),
      );
      return groupCommit<Move, PaymentRow>({
        ...GROUPING,
        stats: groupStats(db)!,
        one: (move) => settleOne(db, to, columns, move),
        many: async (moves) => {
          const values = unnestValues(moves, settleColumns(columns));
          const { rows } = await db.executeQuery(template.fill(values));
          return answersByIndex(rows, moves.length);
        },
      });
    },
  );
}

/**
 * Statements of one shape on their way before calls wait to be grouped, and calls per group: measured
 * in docs/performance.md ("Group commit"). The grouped statements are not prepared (not `hot`): a
 * generic plan made while the tables are small joins a group's rows to them by scanning the whole
 * table, and keeps doing so as they grow; planned each time, with the group's own values and the
 * tables' current size, they find each row by its primary key. The planning is shared by the group.
 */
const GROUPING = { inFlight: 2, maxGroup: 64 };

/** What the grouped settle takes of each move, with the SQL types of the patch's columns. */
const settleColumns = (columns: Array<keyof PaymentPatch>): UnnestColumns => [
  ['id', 'bigint'],
  ['merchantId', 'bigint'],
  ['now', 'timestamptz'],
  ['payload', 'jsonb'],
  ...columns.map((column) => [column, PATCH_TYPES[column]] as const),
];

const PATCH_TYPES: Record<keyof PaymentPatch, string> = {
  processor_payment_id: 'text',
  decline_code: 'text',
  decline_reason: 'text',
  failure_code: 'text',
  challenge_url: 'text',
  upi_intent_url: 'text',
  capture_at: 'timestamptz',
  amount_captured: 'bigint',
  failure_details: 'jsonb',
  three_ds: 'jsonb',
};

/**
 * The settle statement for many payments of one shape: the moves come in as arrays (`unnest`), one
 * row each, and every part of `settleStatement` applies per row, under the same state-machine
 * conditions (a succeeded request's amount paid is its payment's amount captured, which is what
 * `transition` passes the single statement). Two moves of the same payment in one group: PostgreSQL updates the row once, so one of
 * them applies and the other gets no row (stale), as when two single settles race.
 */
function groupedSettleStatement(
  db: Db,
  to: PaymentStatus,
  columns: Array<keyof PaymentPatch>,
  value: <T>(name: string) => T,
): CompiledQuery<GroupedRow> {
  const requestTo = requestStatusFor(to);
  const approved = to === 'succeeded' || to === 'authorized';
  const set = sql.join(columns.map((column) => sql`${sql.id(column)} = m.${sql.id(column)}`));
  const changes = db
    .with('moves', () => unnestRows(settleColumns(columns), value))
    .with(
      'pay',
      () => sql`(update payments p set ${set}${columns.length ? sql`,` : sql``} status = ${to}, updated_at = m.now
        from moves m
        where p.id = m.id and p.merchant_id is not distinct from m."merchantId"
          and p.status in (${sql.join(paymentSourcesFor(to))})
        returning p.*, m.index as group_index)`,
    )
    .with(
      'request',
      () => sql`(update payment_requests r set status = ${requestTo}, updated_at = pay.updated_at${
        to === 'succeeded' ? sql`, amount_paid = pay.amount_captured` : sql``
      }
        from pay
        where r.id = pay.payment_request_id and r.merchant_id is not distinct from pay.merchant_id
          and r.status in (${sql.join(requestSourcesFor(requestTo))})
        returning r.id)`,
    )
    .with(
      'card',
      () => sql`(update cards c set usable = true
        from pay
        where c.id = pay.card_id and c.usable = false and ${sql.raw(String(approved))}
        returning c.id)`,
    );
  return announced(
    changes,
    to,
    sql`(select m.payload from moves m where m.index = pay.group_index)`,
    sql`pay.updated_at`,
  );
}

/** The settle statement of `transition`, with a placeholder for every value that is not part of its shape. */
function settleStatement(
  db: Db,
  to: PaymentStatus,
  columns: Array<keyof PaymentPatch>,
  value: <T>(name: string) => T,
): CompiledQuery<PaymentRow> {
  const patch: PaymentPatch = Object.fromEntries(columns.map((column) => [column, value(column)]));
  const now = value<Date>('now');
  const merchantId = value<number>('merchantId');
  const requestTo = requestStatusFor(to);
  const approved = to === 'succeeded' || to === 'authorized';
  const changes = db
    .with('pay', (qb) =>
      qb
        .updateTable('payments')
        .set({ ...patch, ...jsonColumns(patch), status: to, updated_at: now })
        .where('id', '=', value<number>('id'))
        .where('merchant_id', 'is not distinct from', merchantId)
        .where('status', 'in', paymentSourcesFor(to))
        .returningAll(),
    )
    .with('request', (qb) =>
      qb
        .updateTable('payment_requests')
        .set({
          status: requestTo,
          updated_at: now,
          ...(to === 'succeeded' ? { amount_paid: value<number>('amountPaid') } : {}),
        })
        .where('id', '=', (eb) => eb.selectFrom('pay').select('payment_request_id'))
        .where('merchant_id', 'is not distinct from', merchantId)
        .where('status', 'in', requestSourcesFor(requestTo))
        .returning('id'),
    )
    .with('card', (qb) =>
      qb
        .updateTable('cards')
        .set({ usable: true })
        .where('id', '=', (eb) => eb.selectFrom('pay').select('card_id'))
        .where('usable', '=', false)
        // In the text, not a parameter: each case is its own prepared statement with a tight generic plan (insertAttempt).
        .where(sql<boolean>`${sql.raw(String(approved))}`)
        .returning('id'),
    );
  return announced(changes, to, value('payload'), now);
}

/**
 * The end both settle statements share: for each row of the `pay` CTE, its outbox event and, when
 * authorized, its scheduled capture; the statement answers the `pay` rows.
 */
function announced<DB extends Database>(
  changes: QueryCreator<DB>,
  to: PaymentStatus,
  payload: PaymentEventPayload | Expression<unknown>,
  createdAt: Date | Expression<Date>,
) {
  // The statements' CTEs are more tables than Database knows; this end reads only `pay`.
  const qc = changes as unknown as QueryCreator<Database & { pay: PaymentRow }>;
  const pay = {
    merchantId: sql<number>`pay.merchant_id`,
    livemode: sql<boolean>`pay.livemode`,
    objectId: sql<number>`pay.id`,
  };
  return withEvent(qc, EVENT_FOR[to], { ...pay, payload, createdAt }, { cte: 'pay' })
    .with('capture', (qb) =>
      insertJob(
        qb,
        'payment.capture',
        {
          payload: sql`json_build_object('paymentId', pay.id, 'merchantId', pay.merchant_id)`,
          runAt: sql`pay.capture_at`,
          merchantId: sql`pay.merchant_id`,
          dedupeKey: sql`${dedupeKey('payment.capture', '')}::text || pay.id`,
        },
        { cte: 'pay', where: sql`pay.status = 'authorized'` },
      ).returning('id'),
    )
    .selectFrom('pay')
    .selectAll()
    .compile() as CompiledQuery<PaymentRow>;
}

/** The patch's JSON members as the driver writes them. */
function jsonColumns(patch: PaymentPatch) {
  const json = (value: object | null | undefined) =>
    value === undefined ? undefined : value === null ? null : JSON.stringify(value);
  return { failure_details: json(patch.failure_details), three_ds: json(patch.three_ds) };
}

/**
 * Claims payments pending longer than `cutoff` by bumping updated_at, so each is checked by one
 * instance at a time (SKIP LOCKED), again after the next cutoff until final.
 */
export async function claimStalePending(db: Db, now: Date, cutoff: Date, limit: number): Promise<PaymentRow[]> {
  return db
    .updateTable('payments')
    .set({ updated_at: now })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('payments')
        .select('id')
        .where('status', '=', 'pending')
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/**
 * Payments of these methods still waiting for the payer, begun before `cutoff`, oldest first. The
 * first condition is the predicate of the partial index `payments_awaiting_payer` word for word, so
 * PostgreSQL can prove the index applies and reads only the payments that wait.
 */
export async function findUnanswered(
  db: Db,
  input: { methods: PaymentRow['method'][]; statuses: PaymentStatus[]; cutoff: Date; limit: number },
): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where(sql<boolean>`(status = 'requires_action' or (method = 'upi' and status = 'pending'))`)
    .where('status', 'in', input.statuses)
    .where('method', 'in', input.methods)
    .where('created_at', '<', input.cutoff)
    .orderBy('created_at')
    .limit(input.limit)
    .execute();
}

/** The payment a callback names, locked: by our reference (pay_<id>) if it matches, else by the processor's transaction id. */
export async function lockPaymentForCallback(
  db: Db,
  ourId: number | undefined,
  transactionId: string,
): Promise<PaymentRow | undefined> {
  const query = db.selectFrom('payments').selectAll().forUpdate();
  const found = ourId !== undefined ? await query.where('id', '=', ourId).executeTakeFirst() : undefined;
  if (found && (found.processor_payment_id === null || found.processor_payment_id === transactionId)) return found;
  return query.where('processor_payment_id', '=', transactionId).executeTakeFirst();
}

/** Reserves `amount` of the captured, unrefunded total; false when it would exceed what was captured. */
export async function reserveRefund(
  db: Db,
  scope: Scope,
  paymentId: number,
  amount: number,
  now: Date,
): Promise<boolean> {
  const reserved = await db
    .updateTable('payments')
    .set({ amount_refunded: sql`amount_refunded + ${amount}`, updated_at: now })
    .where('id', '=', paymentId)
    .where('merchant_id', '=', scope.merchantId)
    .where(sql<boolean>`amount_refunded + ${amount} <= amount_captured`)
    .returning('id')
    .executeTakeFirst();
  return reserved !== undefined;
}

export async function releaseRefund(db: Db, paymentId: number, amount: number, now: Date): Promise<void> {
  await db
    .updateTable('payments')
    .set({ amount_refunded: sql`amount_refunded - ${amount}`, updated_at: now })
    .where('id', '=', paymentId)
    .execute();
}

export async function insertRefund(
  db: Db,
  scope: Scope,
  values: { paymentId: number; amount: number; currency: string; reason: string | null; now: Date },
) {
  return db
    .insertInto('refunds')
    .values({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
      payment_id: values.paymentId,
      amount: values.amount,
      currency: values.currency,
      status: 'pending',
      reason: values.reason,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A refund without its processor's answer yet: pending, and no processor refund id (a processor that
 * answers "pending" gives one). The predicate of the partial index `refunds_unfinished`.
 */
const unfinished = sql<boolean>`refunds.status = 'pending' and refunds.processor_refund_id is null`;

/** Records the processor's answer on an unfinished refund; undefined when another run recorded one first. */
export async function finishRefund(
  db: Db,
  refundId: number,
  status: 'succeeded' | 'pending' | 'failed',
  processorRefundId: string | null,
  now: Date,
) {
  return db
    .updateTable('refunds')
    .set({ status, processor_refund_id: processorRefundId, updated_at: now })
    .where('id', '=', refundId)
    .where(unfinished)
    .returningAll()
    .executeTakeFirst();
}

export async function findRefund(db: Db, refundId: number) {
  return db.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirst();
}

export const isUnfinished = (refund: { status: string; processor_refund_id: string | null }) =>
  refund.status === 'pending' && refund.processor_refund_id === null;

/**
 * Unfinished refunds unchanged since `cutoff`, oldest first, claimed for this sweep by bumping their
 * updated_at (so another instance's sweep skips them for a while).
 */
export async function claimUnfinishedRefunds(db: Db, now: Date, cutoff: Date, limit: number) {
  return db
    .updateTable('refunds')
    .set({ updated_at: now })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('refunds')
        .select('id')
        .where(unfinished)
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where(unfinished)
    .returningAll()
    .execute();
}
