import { inTransaction, type AppContext } from '../../context.js';
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
import type { Sender, SendResult } from './sender.js';
import { signNotification } from './signing.js';
import { targetProblem } from './target-guard.js';

export type DeliveryContext = Pick<AppContext, 'db' | 'clock' | 'vault' | 'config' | 'logger'> & { sender: Sender };

const BATCH = 50;

/**
 * Sends every due delivery once (claimed, so no other instance sends it too), logs the attempt and
 * settles it: 2xx done; 410 done as failed and the default endpoint disabled; anything else backs off
 * (docs/notifications.md) until about 3 days have passed, then failed and the endpoint disabled.
 */
export async function deliverDue(ctx: DeliveryContext): Promise<number> {
  const lockSeconds = Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 30;
  const claimed = await claimDueDeliveries(ctx.db, ctx.clock.now(), lockSeconds, BATCH);
  await Promise.all(claimed.map((delivery) => deliverOne(ctx, delivery)));
  return claimed.length;
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
