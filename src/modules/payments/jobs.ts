import type { FastifyBaseLogger } from 'fastify';
import type { JobRunner } from '../../jobs/queue.js';
import { capturePayment } from './capture.js';
import { findPayment, type PaymentRow } from './repository.js';
import { CAPTURE_JOB, settlePayment, type Settlement } from './settle.js';
import type { PaymentDeps } from './submit-card-payment.js';

type JobPayload = { paymentId: number; merchantId: number };

/** A payment still pending this long after its last change is asked about at its processor. */
export const RECONCILE_AFTER_SECONDS = 60;
const RECONCILE_BATCH = 50;

/**
 * Durable follow-ups of payments: the scheduled capture of delayed-capture authorizations, and the
 * reconciliation of payments whose processor did not answer in time. Reconciliation is a sweep over
 * the payments table (no job row per payment on the hot path): it claims stale pending payments by
 * bumping updated_at, so each is checked by one instance at a time, again every 60 s until final.
 */
export function registerPaymentJobs(jobs: JobRunner, deps: PaymentDeps & { logger: FastifyBaseLogger }): void {
  jobs.registerSweep(async () => {
    const stale = await claimStalePending(deps);
    for (const payment of stale) {
      try {
        await reconcile(deps, payment);
      } catch (error) {
        deps.logger.warn({ paymentId: payment.id, err: { message: (error as Error).message } }, 'reconciliation failed; retried later');
      }
    }
    return stale.length;
  });

  jobs.register({
    kind: CAPTURE_JOB,
    maxAttempts: 20,
    timeoutSeconds: 60,
    handle: async ({ paymentId, merchantId }: JobPayload) => {
      const payment = await findPayment(deps.db, { merchantId, livemode: false }, paymentId);
      if (!payment || payment.status !== 'authorized') return;
      await capturePayment(deps, { merchantId, livemode: false }, paymentId);
    },
  });
}

async function claimStalePending(deps: PaymentDeps): Promise<PaymentRow[]> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - RECONCILE_AFTER_SECONDS * 1000);
  return deps.db
    .updateTable('payments')
    .set({ updated_at: now })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('payments')
        .select('id')
        .where('status', '=', 'pending')
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .limit(RECONCILE_BATCH)
        .forUpdate()
        .skipLocked(),
    )
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/** Asks the processor by our reference and settles the payment; leaves it pending while the processor does. */
export async function reconcile(deps: PaymentDeps, payment: PaymentRow): Promise<void> {
  const processor = deps.processors.get(payment.processor);
  if (!processor) return;
  const status = await processor.queryStatus(`pay_${payment.id}`);
  let settlement: Settlement;
  if (!status) {
    // The processor never received the authorization: nothing was charged, the payer may retry.
    settlement = { kind: 'failed', processorPaymentId: null, failureCode: 'processor_unreachable' };
  } else if (status.status === 'approved' || status.status === 'captured') {
    settlement = { kind: 'approved', processorPaymentId: status.processorPaymentId, captured: status.status === 'captured' };
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
  await settlePayment(deps.db, deps.clock.now(), payment, settlement);
}
