import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import { fromMinor } from '../../lib/money.js';
import { callbacksOfTransactions } from '../callbacks/index.js';
import { eventHistory } from '../notifications/index.js';
import { findAttemptsAndRefunds, findPaymentRequest, type MerchantScope } from './repository.js';
import type { TimelineEntry } from './schemas.js';
import { effectiveStatus } from './status.js';

/** At one instant, cause before effect: a callback changes the state, the change is an event, the event is delivered. */
const ORDER: Record<TimelineEntry['kind'], number> = { created: 0, callback: 1, event: 2, notification_attempt: 3 };

/**
 * Everything that happened to a payment request, oldest first: its creation, every state change (the
 * outbox events of it, its payments and refunds), every provider callback about its payments, and every
 * notification delivery attempt. Events and attempts are kept 30 days (the events retention).
 */
export async function getTimeline(ctx: DbContext, input: { scope: MerchantScope; id: number }) {
  const request = await findPaymentRequest(ctx.db, input.scope, input.id);
  if (!request) throw notFound('payment request');
  const { payments, refunds } = await findAttemptsAndRefunds(ctx.db, input.scope, request.id);
  const [history, callbacks] = await Promise.all([
    eventHistory(ctx, {
      scope: input.scope,
      objects: {
        paymentRequestId: request.id,
        paymentIds: payments.map((p) => p.id),
        refundIds: refunds.map((r) => r.id),
      },
    }),
    callbacksOfTransactions(ctx, {
      transactionIds: payments.flatMap((p) => (p.processor_payment_id === null ? [] : [p.processor_payment_id])),
    }),
  ]);
  const entries: TimelineEntry[] = [
    {
      kind: 'created',
      at: request.created_at.toISOString(),
      amount: fromMinor(request.amount, request.currency),
      currency: request.currency,
    },
    ...callbacks.map((callback) => ({ kind: 'callback' as const, at: callback.receivedAt, callback })),
    ...history.events.map((event) => ({ kind: 'event' as const, ...event })),
    ...history.attempts.map((attempt) => ({ kind: 'notification_attempt' as const, ...attempt })),
  ];
  // A stable sort: within one kind the order of the queries (by id) stays.
  entries.sort((a, b) => a.at.localeCompare(b.at) || ORDER[a.kind] - ORDER[b.kind]);
  return { paymentRequestId: request.id, status: effectiveStatus(request, ctx.clock.now()), entries };
}
