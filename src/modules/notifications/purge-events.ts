import type { DbContext } from '../../storage/db-context.js';
import { deleteEventsBefore } from './repository.js';

/** Events (with their delivery log) are kept this long. */
export const EVENT_RETENTION_DAYS = 30;

/** Deletes events past the retention whose deliveries are all settled. */
export function purgeOldEvents(ctx: DbContext): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - EVENT_RETENTION_DAYS * 24 * 3600 * 1000);
  return deleteEventsBefore(ctx.db, cutoff);
}
