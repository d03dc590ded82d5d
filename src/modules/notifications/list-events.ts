import type { DbContext } from '../../storage/db-context.js';
import { AppError } from '../../errors.js';
import { cursorPosition, DEFAULT_PAGE_SIZE, toPage } from '../../lib/pagination.js';
import { parseEventId, toAttempt, toEnvelope } from './present.js';
import { findAttempts, findEventOfScope, findEvents, pendingDeliveryCount, type MerchantScope } from './repository.js';
import type { EventDetail, ListEventsInput } from './schemas.js';

/** The merchant's events of this mode, newest first (kept 30 days). */
export async function listEvents(ctx: DbContext, input: { scope: MerchantScope; query: ListEventsInput }) {
  const limit = input.query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await findEvents(ctx.db, input.scope, {
    type: input.query.type,
    paymentId: input.query.paymentId,
    beforeId: cursorPosition(input.query.cursor),
    limit: limit + 1,
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toEnvelope) };
}

export const eventNotFound = (eventId: string) =>
  new AppError('NOT_FOUND', `No event ${eventId}`, { details: { eventId } });

/** One event with every delivery attempt; another merchant's or mode's event is not found. */
export async function getEvent(ctx: DbContext, input: { scope: MerchantScope; eventId: string }): Promise<EventDetail> {
  const row = await findEventOfScope(ctx.db, input.scope, parseEventId(input.eventId));
  if (!row) throw eventNotFound(input.eventId);
  const [attempts, pending] = await Promise.all([findAttempts(ctx.db, row.id), pendingDeliveryCount(ctx.db, row.id)]);
  return { ...toEnvelope(row), pendingDeliveries: pending, attempts: attempts.map(toAttempt) };
}
