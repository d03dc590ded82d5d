import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { PaymentStatus } from '../../storage/schema.js';
import type { EventType } from '../outbox.js';
import { paymentSourcesFor, requestSourcesFor, requestStatusFor, type PaymentPatch } from '../state-machine.js';
import type { PaymentRow } from './repository.js';
import { paymentView } from './view.js';

/** What a processor told us about an authorization, from any channel (answer, callback, status query). */
export type Settlement =
  | { kind: 'approved'; processorPaymentId: string | null; captured: boolean }
  | { kind: 'declined'; processorPaymentId: string | null; declineCode: string; declineReason: string }
  | { kind: 'failed'; processorPaymentId: string | null; failureCode: string; declineReason?: string }
  | { kind: 'challenge'; processorPaymentId: string; challengeUrl: string }
  | { kind: 'pending'; processorPaymentId: string | null };

const EVENT_FOR: Partial<Record<PaymentStatus, EventType>> = {
  succeeded: 'payment.succeeded',
  authorized: 'payment.authorized',
  failed: 'payment.failed',
  requires_action: 'payment.requires_action',
  canceled: 'payment.canceled',
};

export const CAPTURE_JOB = 'payment.capture';

/**
 * Applies a processor outcome to a payment and its request through the state machine. Returns the
 * updated payment, or undefined when the outcome is stale (the payment already moved on): callbacks,
 * answers and status queries may race, and the first wins.
 */
export async function settlePayment(db: Db, now: Date, payment: PaymentRow, settlement: Settlement): Promise<PaymentRow | undefined> {
  const processorPaymentId = settlement.processorPaymentId ?? payment.processor_payment_id;
  switch (settlement.kind) {
    case 'pending':
      if (!processorPaymentId || payment.processor_payment_id === processorPaymentId) return undefined;
      return db
        .updateTable('payments')
        .set({ processor_payment_id: processorPaymentId, updated_at: now })
        .where('id', '=', payment.id)
        .where('processor_payment_id', 'is', null)
        .returningAll()
        .executeTakeFirst();
    case 'approved':
      return payment.capture_delay_hours > 0 && !settlement.captured
        ? transition(db, now, payment, 'authorized', {
            processor_payment_id: processorPaymentId,
            capture_at: new Date(now.getTime() + payment.capture_delay_hours * 3600_000),
          })
        : transition(db, now, payment, 'succeeded', { processor_payment_id: processorPaymentId, amount_captured: payment.amount });
    case 'declined':
      return transition(db, now, payment, 'failed', {
        processor_payment_id: processorPaymentId,
        decline_code: settlement.declineCode,
        decline_reason: settlement.declineReason,
        failure_code: 'card_declined',
      });
    case 'failed':
      return transition(db, now, payment, 'failed', {
        processor_payment_id: processorPaymentId,
        failure_code: settlement.failureCode,
        decline_reason: settlement.declineReason ?? null,
      });
    case 'challenge':
      return transition(db, now, payment, 'requires_action', {
        processor_payment_id: settlement.processorPaymentId,
        challenge_url: settlement.challengeUrl,
      });
  }
}

/**
 * Moves a payment to `to` and, in the same single statement (so atomically, and in one round trip
 * on the hot path): its payment request along with it, its card usable once approved, the outbox
 * event, and the scheduled capture of a delayed-capture authorization. Every update is conditional
 * on the state machine's legal sources; when the payment's own update does not apply, nothing does.
 */
export async function transition(db: Db, now: Date, payment: PaymentRow, to: PaymentStatus, patch: PaymentPatch): Promise<PaymentRow | undefined> {
  const next: PaymentRow = { ...payment, ...patch, status: to, updated_at: now };
  const requestTo = requestStatusFor(to);
  const event = EVENT_FOR[to];
  const approved = to === 'succeeded' || to === 'authorized';
  const row = await db
    .with('pay', (qb) =>
      qb
        .updateTable('payments')
        .set({ ...patch, status: to, updated_at: now })
        .where('id', '=', payment.id)
        .where('merchant_id', '=', payment.merchant_id)
        .where('status', 'in', paymentSourcesFor(to))
        .returningAll(),
    )
    .with('request', (qb) =>
      qb
        .updateTable('payment_requests')
        .set({ status: requestTo, updated_at: now, ...(to === 'succeeded' ? { amount_paid: next.amount_captured } : {}) })
        .where('id', '=', (eb) => eb.selectFrom('pay').select('payment_request_id'))
        .where('merchant_id', '=', payment.merchant_id)
        .where('status', 'in', requestSourcesFor(requestTo))
        .returning('id'),
    )
    .with('card', (qb) =>
      qb
        .updateTable('cards')
        .set({ usable: true })
        .where('id', '=', (eb) => eb.selectFrom('pay').select('card_id'))
        .where('usable', '=', false)
        .where(sql<boolean>`${approved}`)
        .returning('id'),
    )
    .with('event', (qb) =>
      qb
        .insertInto('outbox_events')
        .columns(['merchant_id', 'livemode', 'type', 'object_id', 'payload', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('pay')
            .where(sql<boolean>`${event !== undefined}`)
            .select([
              'merchant_id',
              'livemode',
              sql<string>`${event ?? ''}::text`.as('type'),
              'id',
              sql<string>`${JSON.stringify(paymentView(next, undefined))}::jsonb`.as('payload'),
              sql<Date>`${now}::timestamptz`.as('created_at'),
            ]),
        )
        .returning('id'),
    )
    .with('capture', (qb) =>
      qb
        .insertInto('jobs')
        .columns(['kind', 'payload', 'run_at', 'merchant_id', 'dedupe_key', 'max_attempts'])
        .expression((eb) =>
          eb
            .selectFrom('pay')
            .where('status', '=', 'authorized')
            .select([
              sql<string>`${CAPTURE_JOB}::text`.as('kind'),
              sql<string>`json_build_object('paymentId', pay.id, 'merchantId', pay.merchant_id)::jsonb`.as('payload'),
              'capture_at',
              'merchant_id',
              sql<string>`${CAPTURE_JOB}::text || ':' || pay.id`.as('dedupe_key'),
              sql<number>`20`.as('max_attempts'),
            ]),
        )
        .onConflict((oc) => oc.column('dedupe_key').doNothing())
        .returning('id'),
    )
    .selectFrom('pay')
    .selectAll()
    .executeTakeFirst();
  return row as PaymentRow | undefined;
}
