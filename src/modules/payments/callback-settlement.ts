import type { Processor } from '../../processors/types.js';
import type { Db } from '../../storage/db.js';
import type { CallbackEvent } from '../callbacks/index.js';
import { lockPaymentForCallback, type PaymentRow } from './repository.js';
import type { Settlement } from './types.js';

/** By our reference (providerData.reference = pay_<id>), else by the processor's transaction id. */
export async function paymentFor(trx: Db, event: CallbackEvent): Promise<PaymentRow | undefined> {
  const reference = event.body.providerData?.reference;
  const id = typeof reference === 'string' && /^pay_\d{1,15}$/.test(reference) ? Number(reference.slice(4)) : undefined;
  return lockPaymentForCallback(trx, id, event.body.transactionId);
}

/** A processor's outcome callback, read by that processor's own parseCallback. */
export function processorSettlement(
  processor: Processor | undefined,
  event: CallbackEvent,
  payment: PaymentRow,
): Settlement | undefined {
  if (!processor) return undefined;
  const parsed = processor.parseCallback(event.body);
  const processorPaymentId = parsed.processorPaymentId;
  switch (parsed.outcome) {
    case 'succeeded':
      return { kind: 'approved', processorPaymentId, captured: payment.capture_delay_hours === 0 };
    case 'failed':
      return parsed.declineCode
        ? {
            kind: 'declined',
            processorPaymentId,
            declineCode: parsed.declineCode,
            declineReason: parsed.declineReason ?? 'declined',
          }
        : { kind: 'failed', processorPaymentId, failureCode: 'processor_failed', declineReason: parsed.declineReason };
    case 'requires_action':
      return parsed.challengeUrl
        ? { kind: 'challenge', processorPaymentId, challengeUrl: parsed.challengeUrl }
        : undefined;
    case 'pending':
      return { kind: 'pending', processorPaymentId };
    default:
      // refunded / chargeback notices (svcwh) and unknown statuses do not settle an authorization.
      return undefined;
  }
}
