import type { PaymentRequestStatus } from './payment-requests/tables.js';
import type { PaymentStatus, ThreeDsRecord } from './payments/tables.js';

/**
 * The one place that decides which status changes are legal (decisions.md "States").
 * Every change is a conditional update: `where status in (<legal sources>)`. No row back means
 * the change is not legal from the current state (a late or duplicate event, or a race lost),
 * so a payment never moves backwards.
 */
const PAYMENT_SOURCES: Record<PaymentStatus, PaymentStatus[]> = {
  pending: [],
  requires_action: ['pending'],
  authorized: ['pending', 'requires_action'],
  succeeded: ['pending', 'requires_action', 'authorized'],
  failed: ['pending', 'requires_action', 'authorized'],
  canceled: ['authorized'],
};

const REQUEST_SOURCES: Record<PaymentRequestStatus, PaymentRequestStatus[]> = {
  open: ['processing', 'authorized'],
  processing: ['open'],
  authorized: ['processing'],
  paid: ['processing', 'authorized'],
  partially_refunded: ['paid', 'partially_refunded'],
  refunded: ['paid', 'partially_refunded'],
  canceled: ['open'],
  expired: ['open'],
};

/** The statuses a payment request may move to `to` from; for updates with extra conditions (expiry). */
export function requestSourcesFor(to: PaymentRequestStatus): PaymentRequestStatus[] {
  return REQUEST_SOURCES[to];
}

/** The statuses a payment may move to `to` from; for statements that update more than the payment. */
export function paymentSourcesFor(to: PaymentStatus): PaymentStatus[] {
  return PAYMENT_SOURCES[to];
}

export type PaymentPatch = {
  processor_payment_id?: string | null;
  decline_code?: string | null;
  decline_reason?: string | null;
  failure_code?: string | null;
  challenge_url?: string | null;
  upi_intent_url?: string | null;
  capture_at?: Date | null;
  amount_captured?: number;
  failure_details?: Record<string, unknown> | null;
  three_ds?: ThreeDsRecord | null;
};

/** The request status that follows from a payment attempt reaching `status`. */
export function requestStatusFor(payment: PaymentStatus): PaymentRequestStatus {
  switch (payment) {
    case 'pending':
    case 'requires_action':
      return 'processing';
    case 'authorized':
      return 'authorized';
    case 'succeeded':
      return 'paid';
    case 'failed':
    case 'canceled':
      return 'open';
  }
}
