import type { JobRunner } from '../../jobs/queue.js';
import { capturePayment } from './capture.js';
import { findPayment } from './repository.js';
import { CAPTURE_JOB, settlePayment, type Settlement } from './settle.js';
import { RECONCILE_JOB } from './begin-attempt.js';
import type { PaymentDeps } from './submit-card-payment.js';

type JobPayload = { paymentId: number; merchantId: number };

class StillPending extends Error {}

/** Durable follow-ups of a payment. Each handler reloads the payment and returns early if it is final. */
export function registerPaymentJobs(jobs: JobRunner, deps: PaymentDeps): void {
  jobs.register({
    kind: RECONCILE_JOB,
    maxAttempts: 12,
    timeoutSeconds: 60,
    backoffSeconds: (attempt) => Math.min(3600, 30 * 2 ** attempt),
    handle: async ({ paymentId, merchantId }: JobPayload) => {
      const payment = await findPayment(deps.db, { merchantId, livemode: false }, paymentId);
      if (!payment || payment.status !== 'pending') return;
      const status = await deps.processors.get(payment.processor)!.queryStatus(`pay_${payment.id}`);
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
        throw new StillPending(`processor still reports ${status.status}`);
      }
      await settlePayment(deps.db, deps.clock.now(), payment, settlement);
    },
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
