import type { Types } from '@adyen/api-library';
import type { AuthorizeOutcome } from '../types.js';
import { declineOf } from './refusals.js';

/** The members of a `/payments` or `/payments/details` answer the connector reads. */
export type PaymentAnswer = Pick<
  Types.checkout.PaymentResponse,
  'pspReference' | 'merchantReference' | 'refusalReason' | 'refusalReasonCode' | 'amount'
> & {
  resultCode?: string;
  action?: { type?: string; url?: string; method?: string } | null;
};

/**
 * An authorization's answer in the gateway's words. `processorPaymentId` is Adyen's pspReference; a
 * redirect answer may come without one, and then the gateway's reference stands for it until
 * `/payments/details` gives it.
 */
export function outcomeOf(answer: PaymentAnswer, reference: string, captured: boolean): AuthorizeOutcome {
  const id = answer.pspReference ?? answer.merchantReference ?? reference;
  switch (answer.resultCode) {
    case 'Authorised':
      return { kind: 'approved', processorPaymentId: id, captured };
    case 'Refused':
    case 'Error':
    case 'Cancelled':
      return {
        kind: 'declined',
        processorPaymentId: answer.pspReference ?? null,
        ...declineOf(answer.refusalReasonCode, answer.refusalReason),
      };
    case 'Pending':
    case 'Received':
      return { kind: 'pending', processorPaymentId: id };
    case 'RedirectShopper':
      // A POST redirect needs a form with the action's data: a challenge URL alone cannot carry it.
      if (answer.action?.type === 'redirect' && answer.action.url && answer.action.method !== 'POST') {
        return { kind: 'challenge', processorPaymentId: id, challengeUrl: answer.action.url };
      }
      break;
    default:
      break;
  }
  // IdentifyShopper/ChallengeShopper (native 3-D Secure 2) and the rest need a flow the gateway
  // does not run: nothing moved money, and the payer cannot go on.
  return { kind: 'error', retryable: false, message: `Adyen answered ${answer.resultCode ?? 'no resultCode'}` };
}
