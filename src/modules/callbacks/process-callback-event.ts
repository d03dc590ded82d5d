import { inTransaction } from '../../storage/db-context.js';
import type { CallbacksContext } from './context.js';
import type { JobHandlers } from '../../jobs/queue.js';
import type { Db } from '../../storage/db.js';
import type { CallbackEvent } from './dispatch.js';
import {
  lockCallbackEvent,
  markCallbackProcessed,
  recordProcessingError,
  type CallbackEventRow,
} from './repository.js';
import { isKnownStatus, PROVIDER_SOURCES, type ProviderSource } from './schemas.js';

export type CallbackProcessingContext = Pick<CallbacksContext, 'db' | 'clock' | 'callbackHandlers' | 'vault'>;

const isProviderSource = (source: string): source is ProviderSource =>
  (PROVIDER_SOURCES as readonly string[]).includes(source);

/**
 * Runs the registered handlers for one stored event, once: the row is locked, an already
 * processed event is left alone, and the handlers' effects commit together with processed_at.
 * On a handler error everything rolls back, the error is noted on the event, and the job retries.
 */
export async function processCallbackEvent(
  deps: CallbackProcessingContext,
  input: { callbackEventId: number },
): Promise<void> {
  const { callbackEventId } = input;
  try {
    await inTransaction(deps, async ({ db: trx }) => {
      const row = await lockCallbackEvent(trx, callbackEventId);
      if (!row || row.processed_at !== null || !isProviderSource(row.source)) return;
      const note = await dispatch(deps, trx, row, row.source);
      await markCallbackProcessed(trx, row.id, deps.clock.now(), note);
    });
  } catch (error) {
    await recordProcessingError(deps.db, callbackEventId, (error as Error).message ?? String(error));
    throw error;
  }
}

/** Returns a note when the event was deliberately not handled. */
async function dispatch(
  deps: CallbackProcessingContext,
  trx: Db,
  row: CallbackEventRow,
  source: ProviderSource,
): Promise<string | null> {
  if (!isKnownStatus(source, row.status ?? '')) {
    return `status "${row.status}" is not one /callbacks/${source} processes; stored only`;
  }
  const handlers = deps.callbackHandlers.for(source);
  if (handlers.length === 0) return `no handler registered for /callbacks/${source}; stored only`;
  // The body as received: the stored one has its secrets redacted, and the ones processing needs sealed.
  const secrets = row.sealed_secrets === null ? {} : (JSON.parse(deps.vault.unseal(row.sealed_secrets)) as object);
  const body = { ...(row.payload as object), ...secrets };
  const event = { id: row.id, source, receivedAt: row.received_at, body } as CallbackEvent;
  for (const handler of handlers) await handler(event, trx);
  return null;
}

export function callbackJobs(ctx: CallbackProcessingContext): JobHandlers {
  return { 'callback.process': (payload) => processCallbackEvent(ctx, payload) };
}
