import type { AuthorizeOutcome } from '../../processors/types.js';
import type { Settlement } from './types.js';

/** A processor's answer to an authorization as a settlement; undefined when there was no answer in time. */
export function toSettlement(outcome: AuthorizeOutcome): Settlement | undefined {
  switch (outcome.kind) {
    case 'approved':
      return {
        kind: 'approved',
        processorPaymentId: outcome.processorPaymentId,
        captured: outcome.captured,
        // Frictionless 3-D Secure: authenticated by the issuer without a challenge.
        ...(outcome.eci ? { threeDs: { result: 'Y', eci: outcome.eci, authenticationValue: null } } : {}),
      };
    case 'declined':
      return {
        kind: 'declined',
        processorPaymentId: outcome.processorPaymentId,
        declineCode: outcome.declineCode,
        declineReason: outcome.declineReason,
      };
    case 'challenge':
      return { kind: 'challenge', processorPaymentId: outcome.processorPaymentId, challengeUrl: outcome.challengeUrl };
    case 'pending':
      return { kind: 'pending', processorPaymentId: outcome.processorPaymentId };
    case 'error':
      return {
        kind: 'failed',
        processorPaymentId: null,
        failureCode: 'processor_error',
        declineReason: outcome.message,
      };
    case 'timeout':
      return undefined;
  }
}
