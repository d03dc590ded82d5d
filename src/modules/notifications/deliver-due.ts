import { inTransaction } from '../../storage/db-context.js';
import type { NotificationsContext } from './context.js';
import type { Sweep } from '../../jobs/queue.js';
import { OneMoreAfter } from '../../lib/one-more-after.js';
import { loadSettingsRow } from './get-settings.js';
import { toEnvelope, storedError, eventIdOf } from './present.js';
import {
  claimDueDeliveries,
  disableEndpoint,
  recordAttempt,
  type AttemptRecord,
  type MerchantScope,
} from './repository.js';
import { queueNotice } from './queue-notice.js';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.js';
import { endpointPlaces } from './endpoint-places.js';
import type { Sender, SendResult } from './sender.js';
import { sendSigned } from './send-signed.js';

export type DeliveryContext = NotificationsContext & { sender: Sender };

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
 * to WEBHOOK_TIMEOUT_MS on each attempt. And no endpoint has more sends in flight than its places
 * (endpoint-places.ts: 4, more for a receiver that keeps answering while more is due), which the sender
 * has connections for: more would only queue in the client, taking places other receivers could use.
 *
 * When the last claim filled an endpoint's free places (or all of the instance's), due deliveries may
 * be waiting for the place a send to it frees as it ends: the sweep claims again at once instead of at
 * the loop's next pass, so a receiver that answers takes its notifications as fast as it answers them,
 * not a few per pass of the loop (docs/decisions.md, "Job runner"). One claim at a time: sends that end
 * during a claim are served by one more claim after it.
 */
export function deliverySweep(ctx: DeliveryContext): Sweep {
  const lockSeconds = Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 30;
  const places = endpointPlaces();
  /** Each delivery under way: its send, then the record of its attempt. */
  const underWay = new Set<Promise<void>>();
  const claimFailed = (error: unknown) => ctx.logger.error({ err: error }, 'delivery claim failed');
  /**
   * One claim at a time, the loop's and the sweep's own alike; a claim asked for during one follows it.
   * Closed from the loop's stop until its next pass: the sweep claims nothing of its own meanwhile.
   */
  const claims = new OneMoreAfter<number>({ onError: claimFailed });
  /** Endpoints whose free places the last claim that read them filled: more may be due there. */
  const backlogged = new Set<string>();
  /** The last claim took every free place of the instance: more may be due anywhere. */
  let allTaken = false;
  const claimMore = () => void claims.run(claim).catch(claimFailed);

  // The place is free as soon as the send ends; the attempt is recorded beside the next claim. Until it
  // is, the delivery stays locked, so no claim takes it again nor a later event of its payment.
  const start = (delivery: Claimed) => {
    places.taken(delivery.endpoint);
    const freePlace = (answered: boolean) => {
      const more = backlogged.has(delivery.endpoint);
      places.released(delivery.endpoint, answered, more);
      if (!claims.closed && (allTaken || more)) claimMore();
    };
    // A failure here (the store, not the receiver) leaves the claim to expire and the delivery to be retried.
    const work: Promise<void> = sendOne(ctx, delivery)
      .then(
        (sent) => {
          freePlace(sent.result.error === null);
          return recordOutcome(ctx, delivery, sent);
        },
        (error: unknown) => {
          freePlace(false);
          throw error;
        },
      )
      .catch((error: unknown) => ctx.logger.error({ err: error, deliveryId: delivery.id }, 'delivery failed'))
      .finally(() => underWay.delete(work));
    underWay.add(work);
  };

  const claim = async (): Promise<number> => {
    const room = SENDS_IN_FLIGHT - places.inFlight();
    if (room === 0) return 0;
    const free = places.freePlaces();
    const claimed = await claimDueDeliveries(ctx.db, ctx.clock.now(), lockSeconds, room, free);
    const got = countByEndpoint(claimed.map((delivery) => delivery.endpoint));
    for (const endpoint of new Set([...backlogged, ...got.keys()])) {
      const freeThen = free.free.get(endpoint) ?? free.otherwise;
      // A full endpoint (or one narrowed below its sends in flight) is not read: what it has waiting is unknown.
      if (freeThen <= 0) continue;
      if ((got.get(endpoint) ?? 0) >= freeThen) backlogged.add(endpoint);
      else backlogged.delete(endpoint);
    }
    allTaken = claimed.length === room;
    for (const delivery of claimed) start(delivery);
    return claimed.length;
  };

  return {
    everyMs: 0,
    run: () => claims.run(claim),
    settled: async (stopping) => {
      if (stopping) await claims.close();
      // A claim that failed was reported to whoever asked for it.
      while (underWay.size > 0 || claims.busy) await Promise.all([...underWay, claims.idle()]);
    },
  };
}

type Claimed = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

function countByEndpoint(endpoints: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const endpoint of endpoints) counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  return counts;
}

const scopeOf = (delivery: Claimed): MerchantScope => ({
  merchantId: delivery.merchant_id,
  livemode: delivery.livemode,
});

interface Sent {
  attemptAt: Date;
  result: SendResult;
}

/** Signs the delivery's event with the merchant's secrets and sends it once. */
async function sendOne(ctx: DeliveryContext, delivery: Claimed): Promise<Sent> {
  const scope = scopeOf(delivery);
  const event = {
    id: delivery.event_id,
    type: delivery.event_type,
    payload: delivery.event_payload,
    created_at: delivery.event_created_at,
    livemode: delivery.livemode,
  };
  // The claim read the secrets; a merchant without a settings row yet gets one here, as everywhere.
  const secrets = delivery.webhook_secret === null ? await loadSettingsRow(ctx, scope) : delivery;
  const attemptAt = ctx.clock.now();
  const result = await sendSigned(ctx, {
    url: delivery.url,
    eventId: eventIdOf(event.id),
    envelope: toEnvelope(event),
    secrets: { ...secrets, webhook_secret: secrets.webhook_secret! },
    at: attemptAt,
  });
  return { attemptAt, result };
}

/** Logs the attempt and settles the delivery: done, failed (the endpoint disabled), or due again later. */
async function recordOutcome(ctx: DeliveryContext, delivery: Claimed, { attemptAt, result }: Sent): Promise<void> {
  const scope = scopeOf(delivery);
  const now = ctx.clock.now();
  const attempt: AttemptRecord = {
    deliveryId: delivery.id,
    eventId: delivery.event_id,
    at: attemptAt,
    url: delivery.url,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: storedError(result.error),
  };
  const failing = (reason: string) =>
    inTransaction(ctx, async (trx) => {
      await disable(trx, scope, delivery.url, reason);
      await recordAttempt(trx.db, attempt, { status: 'failed', at: now });
    });
  if (result.error === null) await recordAttempt(ctx.db, attempt, { status: 'succeeded', at: now });
  else if (result.statusCode === 410) await failing('the receiver answered 410 Gone');
  else {
    const next = nextAttemptAt({
      firstQueuedAt: delivery.created_at,
      now,
      failedAttempts: delivery.attempts,
      retryAfterSeconds: parseRetryAfter(result.retryAfter, now),
    });
    if (next) await recordAttempt(ctx.db, attempt, { status: 'pending', nextAttemptAt: next });
    else await failing('no delivery succeeded for 3 days');
  }
  if (result.error)
    ctx.logger.info(
      {
        eventId: eventIdOf(delivery.event_id),
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        error: result.error.error,
      },
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
