import type { Db } from '../../storage/db.js';
import type { ProviderCallback, ProviderSource, ThreeDsCallback } from './schemas.js';

/** A verified provider callback as handed to processing (the body as it was received). */
export type CallbackEvent =
  | { id: number; source: Exclude<ProviderSource, '3ds'>; receivedAt: Date; body: ProviderCallback }
  | { id: number; source: '3ds'; receivedAt: Date; body: ThreeDsCallback };

/**
 * Processes one event inside the transaction that marks it processed: its effects commit
 * exactly once with that mark, and a throw rolls both back so the job retries.
 * Callbacks name transactions of other systems too; an unknown transactionId is not an error.
 */
export type CallbackHandler = (event: CallbackEvent, trx: Db) => Promise<void>;

/** What a module contributes: its handler per provider source (composed by app.ts). */
export type CallbackHandlerMap = Partial<Record<ProviderSource, CallbackHandler>>;

/**
 * Where feature modules (payments, refunds, 3-D Secure) subscribe to provider callbacks.
 * Several handlers may share a source; they run in registration order.
 */
export class CallbackHandlers {
  private readonly handlers = new Map<ProviderSource, CallbackHandler[]>();

  /** Returns a function that removes the handler again. */
  register(source: ProviderSource, handler: CallbackHandler): () => void {
    const list = this.handlers.get(source) ?? [];
    list.push(handler);
    this.handlers.set(source, list);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  for(source: ProviderSource): readonly CallbackHandler[] {
    return this.handlers.get(source) ?? [];
  }
}

export function registerCallbackHandler(
  ctx: { callbackHandlers: CallbackHandlers },
  source: ProviderSource,
  handler: CallbackHandler,
): () => void {
  return ctx.callbackHandlers.register(source, handler);
}
