/**
 * The notifications module: merchant settings (default notification URL, webhook secret, event types,
 * checkout origins), delivery of every outbox event to the merchant, signed and retried, the delivery
 * log, deprecation and exposed-key reports, and e-mail notices to the merchant's users.
 */
import type { NotificationsContext } from './context.js';
import type { JobHandlers, Sweep } from '../../jobs/queue.js';
import { deliverySweep } from './deliver-due.js';
import { createMailer } from './mailer.js';
import { purgeOldEvents } from './purge-events.js';
import { queueEvents } from './queue-events.js';
import { createSender } from './sender.js';
import { sendNotice, type NoticeComposers } from './send-notice.js';

export { notificationRoutes as routes } from './routes.js';
export { getSettings } from './get-settings.js';
export { checkoutSettingsOf, retryDeclineCodesOf, type CheckoutSettings } from './checkout-settings.js';
export {
  deprecationHeaders,
  deprecationOf,
  reportDeprecatedUse,
  reportExposedKey,
  type DeprecatedFeature,
} from './deprecations.js';
export { queueNotice } from './queue-notice.js';
export type { NoticeComposer, NoticeComposers } from './send-notice.js';
export { eventHistory } from './event-history.js';
export { checkNotifyUrl } from './check-notify-url.js';
export { EVENT_TYPES } from './event-types.js';
export { sendTestEventNow } from './send-test-event.js';
export type {
  MerchantSettingsTable,
  DeliveryStatus,
  WebhookDeliveriesTable,
  WebhookAttemptsTable,
  DailyReportsTable,
  NoticesTable,
} from './tables.js';

/** Events are kept for 31 days; their purge may be minutes late. */
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * The background side: sweeps (outbox → deliveries → receivers, and the retention), the notice job,
 * and the clients they hold (HTTP for deliveries, SMTP or the file outbox for notices). `composers`: the
 * notice kinds whose mail is composed at send time, from other modules (app.ts wires them).
 */
export function worker(
  ctx: NotificationsContext,
  composers: NoticeComposers = {},
): { jobs: JobHandlers; sweeps: Sweep[]; close: () => Promise<void> } {
  const sender = createSender({
    allowPrivateTargets: ctx.config.webhookAllowPrivateTargets,
    timeoutMs: ctx.config.webhookTimeoutMs,
  });
  const mailer = createMailer(ctx.config);
  return {
    jobs: { 'notice.send': (payload) => sendNotice({ ...ctx, mailer, composers }, payload) },
    sweeps: [
      // Every beat of the loop: these are how soon a merchant hears of a payment.
      { everyMs: 0, run: () => queueEvents(ctx) },
      deliverySweep({ ...ctx, sender }),
      { everyMs: PURGE_EVERY_MS, run: () => purgeOldEvents(ctx) },
    ],
    close: async () => {
      mailer.close();
      await sender.close();
    },
  };
}
export type { NotificationsContext } from './context.js';
