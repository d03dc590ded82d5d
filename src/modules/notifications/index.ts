/**
 * The notifications module: merchant settings (default notification URL, webhook secret, event types,
 * checkout origins), delivery of every outbox event to the merchant, signed and retried, and the
 * delivery log.
 */
import type { AppContext } from '../../context.js';
import type { Sweep } from '../../jobs/queue.js';
import { deliverDue } from './deliver-due.js';
import { purgeOldEvents } from './purge-events.js';
import { queueEvents } from './queue-events.js';
import { createSender } from './sender.js';

export { notificationRoutes as routes } from './routes.js';
export { getSettings } from './get-settings.js';

/** The delivery worker's sweeps (outbox → deliveries → receivers, and the retention) and its HTTP client. */
export function delivery(ctx: AppContext): { sweeps: Sweep[]; close: () => Promise<void> } {
  const sender = createSender({
    allowPrivateTargets: ctx.config.webhookAllowPrivateTargets,
    timeoutMs: ctx.config.webhookTimeoutMs,
  });
  return {
    sweeps: [() => queueEvents(ctx), () => deliverDue({ ...ctx, sender }), () => purgeOldEvents(ctx)],
    close: () => sender.close(),
  };
}
