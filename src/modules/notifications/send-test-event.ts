import { randomBytes } from 'node:crypto';
import { AppError, ERRORS } from '../../errors.js';
import type { EventType } from '../events/index.js';
import { EVENT_SAMPLES } from './event-samples.js';
import { loadSettingsRow, type SettingsContext } from './get-settings.js';
import { EVENTS_API_VERSION } from './present.js';
import type { MerchantScope } from './repository.js';
import type { EventEnvelope, TestEventDelivery } from './schemas.js';
import type { NotificationsContext } from './context.js';
import { createSender } from './sender.js';
import { sendSigned, type SendingContext } from './send-signed.js';

/** What a test event's envelope adds to a real one's: it is marked as a test twice (id prefix and `test`). */
export type TestEventEnvelope = EventEnvelope & { test: true };

/** Test events' ids: never a real event's (evt_<number>), so a receiver that de-duplicates keeps them apart. */
export const TEST_EVENT_ID_PREFIX = 'evt_test_';

/** The envelope of a test event of `type`: a sample payload (event-samples.ts), marked as a test. */
export function testEventEnvelope(type: EventType, at: Date, livemode: boolean): TestEventEnvelope {
  return {
    id: `${TEST_EVENT_ID_PREFIX}${randomBytes(12).toString('hex')}`,
    type,
    created: at.toISOString(),
    apiVersion: EVENTS_API_VERSION,
    livemode,
    data: { object: EVENT_SAMPLES[type](at, livemode) as unknown as Record<string, unknown> },
    test: true,
  };
}

/**
 * Sends a sample event of `type` to the merchant's notifyUrl (of the scope's mode) now, signed and sent
 * as real events are (send-signed.ts), once: no retry, nothing written to the event log or the delivery
 * log, the endpoint neither disabled nor re-enabled by the outcome, which is answered instead. Sent
 * whatever the settings' eventTypes and even to a disabled endpoint: a test is how a merchant checks a
 * receiver before switching it back on.
 */
export async function sendTestEvent(
  ctx: SettingsContext & SendingContext,
  input: { scope: MerchantScope; type: EventType },
): Promise<TestEventDelivery> {
  const settings = await loadSettingsRow(ctx, input.scope);
  const url = settings.notify_url;
  if (!url)
    throw new AppError(
      'NOTIFY_URL_NOT_SET',
      `There is no notification URL to send a test event to in ${input.scope.livemode ? 'live' : 'test'} mode: set notifyUrl first (PATCH /settings)`,
    );
  const at = ctx.clock.now();
  const envelope = testEventEnvelope(input.type, at, input.scope.livemode);
  const result = await sendSigned(ctx, { url, eventId: envelope.id, envelope, secrets: settings, at });
  return {
    id: envelope.id,
    type: input.type,
    url,
    delivered: result.error === null,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: result.error && { ...result.error, code: ERRORS[result.error.error].code },
  };
}

/** sendTestEvent with an HTTP client of its own, closed once it has sent (the operator CLI's). */
export async function sendTestEventNow(
  ctx: SettingsContext & Pick<NotificationsContext, 'config' | 'vault'>,
  input: { scope: MerchantScope; type: EventType },
): Promise<TestEventDelivery> {
  const sender = createSender({
    allowPrivateTargets: ctx.config.webhookAllowPrivateTargets,
    timeoutMs: ctx.config.webhookTimeoutMs,
  });
  try {
    return await sendTestEvent({ ...ctx, sender }, input);
  } finally {
    await sender.close();
  }
}
