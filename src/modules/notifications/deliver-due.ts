import { inTransaction, type AppContext } from '../../context.js';
import type { Sweep } from '../../jobs/queue.js';
import { loadSettingsRow } from './get-settings.js';
import { toEnvelope, storedError, eventIdOf } from './present.js';
import {
  claimDueDeliveries,
  disableEndpoint,
  findOutboxEvent,
  insertAttempt,
  settleDelivery,
  type MerchantScope,
} from './repository.js';
import { queueNotice } from './queue-notice.js';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.js';
import { CONNECTIONS_PER_ENDPOINT, type Sender, type SendResult } from './sender.js';
import { signNotification } from './signing.js';
import { targetProblem } from './target-guard.js';

export type DeliveryContext = Pick<AppContext, 'db' | 'clock' | 'vault' | 'config' | 'logger'> & { sender: Sender };

/** Sends in flight per instance at most; due deliveries beyond it wait, unclaimed, for a free place. */
export const SENDS_IN_FLIGHT = 50;

/**
 * The delivery sweep: claims due deliveries (so no other instance sends them too) and sends each once,
 * logs the attempt and settles it: 2xx done; 410 done as failed and the default endpoint disabled;
 * anything else backs off (docs/notifications.md) until about 3 days have passed, then failed and the
 * endpoint disabled.
 *
 * The sends run beside the job loop, not in its pass: a receiver that never answers would otherwise hold
 * the instance's whole loop (every other merchant's deliveries, the outbox relay, reconciliation) for up
 * to WEBHOOK_TIMEOUT_MS on each attempt. And no endpoint has more sends in flight than the sender has
 * connections to it: more would only queue in the client, taking places other receivers could use.
 */
export function deliverySweep(ctx: DeliveryContext): Sweep {
  const lockSeconds = Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 30;
  /** Each send in flight, with its delivery's endpoint. */
  const inFlight = new Map<Promise<void>, string>();

  const start = (delivery: Claimed) => {
    // A failure here (the store, not the receiver) leaves the claim to expire and the delivery to be retried.
    const sending: Promise<void> = deliverOne(ctx, delivery)
      .catch((error: unknown) => ctx.logger.error({ err: error, deliveryId: delivery.id }, 'delivery failed'))
      .finally(() => inFlight.delete(sending));
    inFlight.set(sending, delivery.endpoint);
  };

  return {
    everyMs: 0,
    run: async () => {
      const room = SENDS_IN_FLIGHT - inFlight.size;
      if (room === 0) return 0;
      const perEndpoint = new Map<string, number>();
      for (const endpoint of inFlight.values()) perEndpoint.set(endpoint, (perEndpoint.get(endpoint) ?? 0) + 1);
      const places = { perEndpoint: CONNECTIONS_PER_ENDPOINT, inFlight: perEndpoint };
      const claimed = await claimDueDeliveries(ctx.db, ctx.clock.now(), lockSeconds, room, places);
      for (const delivery of claimed) start(delivery);
      return claimed.length;
    },
    settled: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight.keys());
    },
  };
}

type Claimed = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

async function deliverOne(ctx: DeliveryContext, delivery: Claimed): Promise<void> {
  const scope: MerchantScope = { merchantId: delivery.merchant_id, livemode: delivery.livemode };
  const event = (await findOutboxEvent(ctx.db, delivery.event_id))!;
  const settings = await loadSettingsRow(ctx, scope);
  const attemptAt = ctx.clock.now();
  const secrets = [ctx.vault.unseal(settings.webhook_secret)];
  if (settings.previous_webhook_secret && settings.previous_valid_until && attemptAt < settings.previous_valid_until)
    secrets.push(ctx.vault.unseal(settings.previous_webhook_secret));

  const body = JSON.stringify(toEnvelope(event));
  const result: SendResult =
    targetProblem(delivery.url, ctx.config.webhookAllowPrivateTargets) === undefined
      ? await ctx.sender.send(
          delivery.url,
          { ...signNotification(secrets, eventIdOf(event.id), attemptAt, body) },
          body,
        )
      : {
          statusCode: null,
          retryAfter: undefined,
          durationMs: 0,
          error: { error: 'WEBHOOK_TARGET_FORBIDDEN', message: 'the target is not an allowed http(s) address' },
        };

  await inTransaction(ctx, async (trx) => {
    const now = trx.clock.now();
    await insertAttempt(trx.db, {
      deliveryId: delivery.id,
      eventId: event.id,
      at: attemptAt,
      url: delivery.url,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: storedError(result.error),
    });
    if (result.error === null) return settleDelivery(trx.db, delivery.id, { status: 'succeeded', at: now });
    if (result.statusCode === 410) {
      await disable(trx, scope, delivery.url, 'the receiver answered 410 Gone');
      return settleDelivery(trx.db, delivery.id, { status: 'failed', at: now });
    }
    const next = nextAttemptAt({
      firstQueuedAt: delivery.created_at,
      now,
      failedAttempts: delivery.attempts,
      retryAfterSeconds: parseRetryAfter(result.retryAfter, now),
    });
    if (next) return settleDelivery(trx.db, delivery.id, { status: 'pending', nextAttemptAt: next });
    await disable(trx, scope, delivery.url, 'no delivery succeeded for 3 days');
    await settleDelivery(trx.db, delivery.id, { status: 'failed', at: now });
  });
  if (result.error)
    ctx.logger.info(
      { eventId: eventIdOf(event.id), deliveryId: delivery.id, attempt: delivery.attempts, error: result.error.error },
      'notification not accepted',
    );
}

/** Disables the merchant's default endpoint (when it is this URL) and tells the merchant's users by e-mail. */
async function disable(ctx: DeliveryContext, scope: MerchantScope, url: string, reason: string): Promise<void> {
  if (!(await disableEndpoint(ctx.db, scope, url, reason, ctx.clock.now()))) return;
  await queueNotice(ctx, {
    merchantId: scope.merchantId,
    kind: 'endpoint_disabled',
    subject: `Notifications to ${new URL(url).host} stopped`,
    text: [
      `Your ${scope.livemode ? 'live' : 'test'} notification URL ${url} was disabled: ${reason}.`,
      'Fix the receiver, then set notifyUrl again (PATCH /settings) and re-send missed events (POST /events/{eventId}/resend).',
    ].join('\n'),
  });
}
