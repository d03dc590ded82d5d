import { conflict } from '../../errors.js';
import { loadSettingsRow, type SettingsContext } from './get-settings.js';
import { eventNotFound } from './list-events.js';
import { eventIdOf, parseEventId } from './present.js';
import { findEventOfScope, insertDeliveries, paymentNotifyUrls, type MerchantScope } from './repository.js';
import { paymentIdOf } from './queue-events.js';

/**
 * Queues one more delivery of an event, due now, to where it would go today (the payment's notifyUrl,
 * else the current default URL: a re-enabled or changed endpoint gets it). The caller owns the transaction.
 */
export async function resendEvent(ctx: SettingsContext, input: { scope: MerchantScope; eventId: string }) {
  const event = await findEventOfScope(ctx.db, input.scope, parseEventId(input.eventId));
  if (!event) throw eventNotFound(input.eventId);
  const paymentId = paymentIdOf(event.payload);
  const paymentUrl =
    paymentId === undefined ? undefined : (await paymentNotifyUrls(ctx.db, [paymentId])).get(paymentId);
  const url = paymentUrl ?? (await loadSettingsRow(ctx, input.scope)).notify_url;
  if (!url) throw conflict('There is no notification URL to send this event to: set notifyUrl first');
  // A resend is its own order key: the merchant asked for it now, behind nothing.
  await insertDeliveries(
    ctx.db,
    [{ ...input.scope, eventId: event.id, url, orderKey: `resend:${event.id}:${ctx.clock.now().getTime()}` }],
    ctx.clock.now(),
  );
  return { id: eventIdOf(event.id), queued: true };
}
