import type { DbContext } from '../../storage/db-context.js';
import { eventIdOf, toAttempt } from './present.js';
import { findAttemptsOfEvents, findEventsOfObjects, type EventObjects, type MerchantScope } from './repository.js';

/**
 * The events that announced the changes of a payment request, its payments and refunds, and every
 * delivery attempt of them, oldest first: the notification side of a payment request's timeline.
 */
export async function eventHistory(ctx: Pick<DbContext, 'db'>, input: { scope: MerchantScope; objects: EventObjects }) {
  const events = await findEventsOfObjects(ctx.db, input.scope, input.objects);
  const attempts = await findAttemptsOfEvents(
    ctx.db,
    events.map((event) => event.id),
  );
  return {
    events: events.map((event) => ({
      eventId: eventIdOf(event.id),
      type: event.type,
      at: new Date(event.created_at).toISOString(),
    })),
    attempts: attempts.map((attempt) => ({ eventId: eventIdOf(attempt.event_id), ...toAttempt(attempt) })),
  };
}
