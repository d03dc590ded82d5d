import type { FastifyBaseLogger } from 'fastify';
import type { JobHandlers, Sweep } from '../../jobs/queue.js';
import { capturePayment } from './capture.js';
import { askProcessor } from './refund.js';
import {
  claimStalePending,
  claimUnfinishedRefunds,
  findPayment,
  findPaymentById,
  findUnanswered,
  type PaymentRow,
} from './repository.js';
import { processorOf } from './routing.js';
import { settlePayment } from './settle.js';
import type { PaymentStatus } from './tables.js';
import type { PaymentContext, Settlement } from './types.js';

/** A payment still pending (a refund still unanswered) this long after its last change is asked about at its processor. */
export const RECONCILE_AFTER_SECONDS = 60;
const RECONCILE_BATCH = 50;

/**
 * Durable follow-ups of payments: the scheduled capture of delayed-capture authorizations, and the
 * reconciliation of payments whose processor did not answer in time. Reconciliation is a sweep over
 * the payments table (no job row per payment on the hot path): it claims stale pending payments by
 * bumping updated_at, so each is checked by one instance at a time, again every 60 s until final.
 * Refunds the processor never answered are asked for again the same way.
 */
export function paymentSweeps(ctx: PaymentContext & { logger: FastifyBaseLogger }): Sweep[] {
  return [
    { everyMs: FOLLOW_UP_EVERY_MS, run: () => reconcileStalePending(ctx) },
    { everyMs: FOLLOW_UP_EVERY_MS, run: () => finishUnfinishedRefunds(ctx) },
    expirySweep(ctx, {
      methods: ['card', 'token', 'wallet'],
      statuses: ['requires_action'],
      ttlSeconds: ctx.config.threeDsChallengeTtlSeconds,
      failure: {
        failureCode: 'threeds_failed',
        declineReason: 'The 3-D Secure challenge was not answered in time',
        details: { threeDsResult: null, acsResponse: 'challenge_expired' },
      },
    }),
    expirySweep(ctx, {
      methods: ['upi'],
      statuses: ['pending', 'requires_action'],
      ttlSeconds: ctx.config.upiCollectTtlSeconds,
      failure: {
        failureCode: 'upi_failed',
        declineReason: 'The payer did not answer the UPI request in time',
        details: { upiResponse: null, reason: 'collect_expired' },
      },
    }),
  ];
}

/** Follow-ups wait a minute (RECONCILE_AFTER_SECONDS) anyway: a few seconds more cost nobody anything. */
const FOLLOW_UP_EVERY_MS = 5_000;

/** An unanswered challenge or collect expires at most a twentieth of its TTL late, and within 5 s. */
function expirySweep(ctx: PaymentContext, options: Unanswered): Sweep {
  return { everyMs: Math.min(FOLLOW_UP_EVERY_MS, options.ttlSeconds * 50), run: () => expireUnanswered(ctx, options) };
}

async function reconcileStalePending(ctx: PaymentContext & { logger: FastifyBaseLogger }): Promise<number> {
  const now = ctx.clock.now();
  const stale = await claimStalePending(
    ctx.db,
    now,
    new Date(now.getTime() - RECONCILE_AFTER_SECONDS * 1000),
    RECONCILE_BATCH,
  );
  for (const payment of stale) {
    try {
      await reconcile(ctx, payment);
    } catch (error) {
      ctx.logger.warn(
        { paymentId: payment.id, err: { message: (error as Error).message } },
        'reconciliation failed; retried later',
      );
    }
  }
  return stale.length;
}

/**
 * Refunds committed whose processor call gave no answer (the gateway died during it, the processor
 * timed out or failed): asked again with the same reference, which the processor answers without
 * refunding twice. A refund request retried with its idempotency key resumes its refund sooner.
 */
async function finishUnfinishedRefunds(ctx: PaymentContext & { logger: FastifyBaseLogger }): Promise<number> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - RECONCILE_AFTER_SECONDS * 1000);
  const refunds = await claimUnfinishedRefunds(ctx.db, now, cutoff, RECONCILE_BATCH);
  for (const refund of refunds) {
    const scope = { merchantId: refund.merchant_id, livemode: refund.livemode };
    try {
      const payment = await findPayment(ctx.db, scope, refund.payment_id);
      if (payment) await askProcessor(ctx, payment, refund);
    } catch (error) {
      ctx.logger.warn(
        { refundId: refund.id, err: { message: (error as Error).message } },
        'refund not finished; asked again later',
      );
    }
  }
  return refunds.length;
}

interface Unanswered {
  methods: PaymentRow['method'][];
  statuses: PaymentStatus[];
  ttlSeconds: number;
  failure: Pick<Extract<Settlement, { kind: 'failed' }>, 'failureCode' | 'declineReason' | 'details'>;
}

/**
 * A 3-D Secure challenge or a UPI request nobody answered in time (THREEDS_CHALLENGE_TTL_SECONDS,
 * UPI_COLLECT_TTL_SECONDS) fails its payment and reopens the request for another attempt. Through
 * the state machine, so an answer that comes later finds the payment failed and changes nothing (and
 * two instances expiring it at once is harmless).
 */
async function expireUnanswered(ctx: PaymentContext, input: Unanswered): Promise<number> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - input.ttlSeconds * 1000);
  const unanswered = await findUnanswered(ctx.db, { ...input, cutoff, limit: RECONCILE_BATCH });
  let expired = 0;
  for (const payment of unanswered) {
    const settlement: Settlement = { kind: 'failed', processorPaymentId: null, ...input.failure };
    if (await settlePayment(ctx, { payment, settlement })) expired++;
  }
  return expired;
}

export function paymentJobs(ctx: PaymentContext): JobHandlers {
  return {
    'payment.capture': async ({ paymentId, merchantId }) => {
      const payment = await findPaymentById(ctx.db, paymentId);
      if (!payment || payment.merchant_id !== merchantId || payment.status !== 'authorized') return;
      await capturePayment(ctx, { scope: { merchantId, livemode: payment.livemode }, paymentId });
    },
  };
}

/** Asks the processor by our reference and settles the payment; leaves it pending while the processor does. */
export async function reconcile(ctx: PaymentContext, payment: PaymentRow): Promise<void> {
  const processor = await processorOf(ctx, payment);
  if (!processor) return;
  const status = await processor.queryStatus(`pay_${payment.id}`);
  let settlement: Settlement;
  if (!status) {
    // The processor never received the authorization: nothing was charged, the payer may retry.
    settlement = { kind: 'failed', processorPaymentId: null, failureCode: 'processor_unreachable' };
  } else if (status.status === 'approved' || status.status === 'captured') {
    settlement = {
      kind: 'approved',
      processorPaymentId: status.processorPaymentId,
      captured: status.status === 'captured',
    };
  } else if (status.status === 'declined') {
    settlement = {
      kind: 'declined',
      processorPaymentId: status.processorPaymentId,
      declineCode: status.declineCode ?? '05',
      declineReason: status.declineReason ?? 'declined',
    };
  } else {
    return;
  }
  await settlePayment(ctx, { payment, settlement });
}
