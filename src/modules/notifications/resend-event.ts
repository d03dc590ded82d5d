import { conflict } from '../../errors.js';
import { loadSettingsRow, type SettingsContext } from './get-settings.js';
import { eventNotFound } from './list-events.js';
import { eventIdOf, parseEventId } from './present.js';
import { ownNotifyUrls } from './own-notify-urls.js';
import { findEventOfScope, insertDeliveries, type MerchantScope } from './repository.js';

/**
 * Queues one more delivery of an event, due now, to where it would go today (its payment's or payment
 * request's notifyUrl, else the current default URL: a re-enabled or changed endpoint gets it). The
 * caller owns the transaction.
 */
export async function resendEvent(ctx: SettingsContext, input: { scope: MerchantScope; eventId: string }) {
  const event = await findEventOfScope(ctx.db, input.scope, parseEventId(input.eventId));
  if (!event) throw eventNotFound(input.eventId);
  const ownUrl = (await ownNotifyUrls(ctx.db, [event.payload]))(event.payload);
  const url = ownUrl ?? (await loadSettingsRow(ctx, input.scope)).notify_url;
  if (!url) throw conflict('There is no notification URL to send this event to: set notifyUrl first');
  // A resend is its own order key: the merchant asked for it now, behind nothing.
  await insertDeliveries(
    ctx.db,
    [{ ...input.scope, eventId: event.id, url, orderKey: `resend:${event.id}:${ctx.clock.now().getTime()}` }],
    ctx.clock.now(),
  );
  return { id: eventIdOf(event.id), queued: true };
}
