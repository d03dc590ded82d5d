import { sql, type CompiledQuery, type Expression, type QueryCreator } from 'kysely';
import { insertJob } from '../../jobs/queue.js';
import { dedupeKey } from '../../jobs/catalog.js';
import { cached } from '../../lib/cached.js';
import type { Db } from '../../storage/db.js';
import { groupsCommits, hotGroup } from '../../storage/group-commit.js';
import { hot } from '../../storage/prepared.js';
import { statementTemplate, type StatementTemplate } from '../../storage/statement-template.js';
import type { Database } from '../../storage/schema.js';
import type { PaymentStatus } from './tables.js';
import { runGrouped, unnestRows, type Grouped, type UnnestColumns } from '../../storage/statements.js';
import { withEvent } from '../events/index.js';
import { paymentSourcesFor, requestSourcesFor, requestStatusFor, type PaymentPatch } from '../state-machine.js';
import type { PaymentEventType } from './events.js';
import type { PaymentRow } from './rows.js';
import { announceStatusChange } from './status-changes.js';
import { paymentView } from './view.js';

/**
 * The settle of a payment (part of the payments repository, which re-exports it): every move of a
 * payment's status after its pending insert, one statement alone or grouped with concurrent ones
 * (src/storage/group-commit.ts).
 */

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
  const template = cached(settleTemplates, shapeOf(to, columns), () =>
    statementTemplate((value) => settleStatement(db, to, columns, value)),
  );
  const { rows } = await db.executeQuery(hot('settle', template.fill(move)));
  return rows[0];
}

const shapeOf = (to: PaymentStatus, columns: Array<keyof PaymentPatch>) => `${to}:${columns.join(',')}`;

/**
 * Concurrent settles of one shape on a store that groups commits (src/storage/group-commit.ts): one
 * group per store and shape, whose multi-row statement moves each payment exactly as `settleOne` would.
 */
function settleGroup(db: Db, to: PaymentStatus, columns: Array<keyof PaymentPatch>) {
  return hotGroup<Move, PaymentRow>(db, `settle ${shapeOf(to, columns)}`, () => {
    const template = statementTemplate((value) => groupedSettleStatement(db, to, columns, value));
    return {
      one: (move) => settleOne(db, to, columns, move),
      many: (moves) => runGrouped(db, template, moves, settleColumns(columns)),
    };
  });
}

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
): CompiledQuery<Grouped<PaymentRow>> {
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
