import { inTransaction } from '../../storage/db-context.js';
import { loadSettingsRow, type SettingsContext } from './get-settings.js';
import { ownNotifyUrls, paymentIdOf } from './own-notify-urls.js';
import { claimUnqueuedEvents, insertDeliveries, type NewDelivery } from './repository.js';

const BATCH = 200;

/**
 * Hands new outbox events to delivery: one delivery per event to the notifyUrl of its payment (or of
 * its payment request: own-notify-urls.ts), else the merchant's default URL (unless it is disabled or
 * the merchant does not take the type). An event with no target stays in the log without a delivery.
 * One transaction: an event is queued exactly once.
 */
export async function queueEvents(ctx: SettingsContext): Promise<number> {
  return inTransaction(ctx, async (trx) => {
    const events = await claimUnqueuedEvents(trx.db, BATCH);
    if (events.length === 0) return 0;
    const ownUrlOf = await ownNotifyUrls(
      trx.db,
      events.map((e) => e.payload),
    );
    const deliveries: NewDelivery[] = [];
    // Read once per merchant and mode in the batch, not once per event (a batch is mostly one merchant's).
    const settingsOf = new Map<string, ReturnType<typeof loadSettingsRow>>();
    for (const event of events) {
      const scope = { merchantId: event.merchant_id, livemode: event.livemode };
      const key = `${scope.merchantId}:${scope.livemode}`;
      if (!settingsOf.has(key)) settingsOf.set(key, loadSettingsRow(trx, scope));
      const settings = await settingsOf.get(key)!;
      if (settings.event_types && !settings.event_types.includes(event.type)) continue;
      const paymentId = paymentIdOf(event.payload);
      const defaultUrl = settings.endpoint_disabled_at ? null : settings.notify_url;
      const url = ownUrlOf(event.payload) ?? defaultUrl;
      if (!url) continue;
      const orderKey = paymentId !== undefined ? `payment:${paymentId}` : `event:${event.id}`;
      deliveries.push({ ...scope, eventId: event.id, url, orderKey });
    }
    await insertDeliveries(trx.db, deliveries, trx.clock.now());
    return events.length;
  });
}
