import { sql, type CompiledQuery, type Expression, type QueryCreator } from 'kysely';
import { insertJob } from '../../jobs/queue.js';
import { dedupeKey } from '../../jobs/catalog.js';
import { cached } from '../../lib/cached.js';
import type { Db } from '../../storage/db.js';
import { hotStatement, type Grouped, type HotStatement } from '../../storage/hot-statement.js';
import type { Database } from '../../storage/schema.js';
import type { PaymentStatus } from './tables.js';
import { withEvent } from '../events/index.js';
import { paymentSourcesFor, requestSourcesFor, requestStatusFor, type PaymentPatch } from '../state-machine.js';
import type { PaymentEventType } from './events.js';
import type { PaymentRow } from './rows.js';
import type { PaymentView } from './schemas.js';

/**
 * The settle of a payment (part of the payments repository, which re-exports it): every move of a
 * payment's status after its pending insert, one statement written once, run alone or grouped with
 * concurrent ones (src/storage/hot-statement.ts).
 */

const EVENT_FOR: Partial<Record<PaymentStatus, PaymentEventType>> = {
  succeeded: 'payment.succeeded',
  authorized: 'payment.authorized',
  failed: 'payment.failed',
  requires_action: 'payment.requires_action',
  canceled: 'payment.canceled',
};

/** One move of a payment's status: which payment, where to, what else changes, and what its event says. */
export interface PaymentMove {
  paymentId: number;
  merchantId: number;
  to: PaymentStatus;
  patch: PaymentPatch;
  now: Date;
  /** The payment as its outbox event carries it, moved (the caller builds it). */
  payload: PaymentView;
}

/**
 * Moves a payment to `to` and, in the same single statement (so atomically, and in one round trip
 * on the hot path): its payment request along with it (a succeeded request's amount paid is its
 * payment's amount captured), its card usable once approved, the outbox event, and the scheduled
 * capture of a delayed-capture authorization. Every update is conditional on the state machine's
 * legal sources; when the payment's own update does not apply, nothing does (undefined back). Two
 * moves of the same payment in one group: PostgreSQL updates the row once, so one of them applies
 * and the other gets no row (stale), as when two single settles race.
 */
export async function transition(db: Db, move: PaymentMove): Promise<PaymentRow | undefined> {
  const { patch } = move;
  const columns = (Object.keys(patch) as Array<keyof PaymentPatch>).filter((c) => patch[c] !== undefined).sort();
  const statement = cached(settleStatements, `${move.to}:${columns.join(',')}`, () =>
    settleStatement(move.to, columns),
  );
  return statement.run(db, {
    ...patch,
    id: move.paymentId,
    merchantId: move.merchantId,
    now: move.now,
    payload: move.payload,
  });
}

/** One settle statement per target status and set of patched columns (a handful in all). */
const settleStatements = new Map<string, HotStatement<PaymentRow>>();

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

function settleStatement(to: PaymentStatus, columns: Array<keyof PaymentPatch>): HotStatement<PaymentRow> {
  return hotStatement<PaymentRow>({
    key: `settle ${to}:${columns.join(',')}`,
    prepared: 'settle',
    build: (db, calls) => {
      const { value } = calls;
      const requestTo = requestStatusFor(to);
      const approved = to === 'succeeded' || to === 'authorized';
      const set = columns.map((column) => sql`${sql.id(column)} = ${value(column, PATCH_TYPES[column])}`);
      const changes = calls
        .with(db)
        .with(
          'pay',
          () => sql`(update payments p set ${sql.join([...set, sql`status = ${to}`, sql`updated_at = ${value('now', 'timestamptz')}`])}
        from calls
        where p.id = ${value('id', 'bigint')} and p.merchant_id is not distinct from ${value('merchantId', 'bigint')}
          and p.status in (${sql.join(paymentSourcesFor(to))})
        returning p.*, calls.index as group_index)`,
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
          // In the text, not a parameter: each case is its own prepared statement with a tight generic plan (insertAttempt).
          () => sql`(update cards c set usable = true
        from pay
        where c.id = pay.card_id and c.usable = false and ${sql.raw(String(approved))}
        returning c.id)`,
        );
      return announced(changes, to, value('payload', 'jsonb'));
    },
  });
}

/**
 * The end of the settle statement: for each row of the `pay` CTE, its outbox event and, when
 * authorized, its scheduled capture; the statement answers the `pay` rows.
 */
function announced<DB extends Database>(changes: QueryCreator<DB>, to: PaymentStatus, payload: Expression<unknown>) {
  // The statement's CTEs are more tables than Database knows; this end reads only `pay`.
  const qc = changes as unknown as QueryCreator<Database & { pay: Grouped<PaymentRow> }>;
  const pay = {
    merchantId: sql<number>`pay.merchant_id`,
    livemode: sql<boolean>`pay.livemode`,
    objectId: sql<number>`pay.id`,
    payload: sql<PaymentView>`(select ${payload} from calls where calls.index = pay.group_index)`,
    createdAt: sql<Date>`pay.updated_at`,
  };
  return withEvent(qc, EVENT_FOR[to], pay, { cte: 'pay' })
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
    .compile() as CompiledQuery<Grouped<PaymentRow>>;
}
