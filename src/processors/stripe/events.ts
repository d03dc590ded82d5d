import type Stripe from 'stripe';
import type { ProviderCallback, ProviderEvent } from '../types.js';
import { gatewayDecline } from './decline-codes.js';
import { challengeUrlOf } from './intent-outcome.js';

/** A Stripe event as the gateway reads it, with what identifies it for deduplication. */
export interface StripeProviderEvent extends ProviderEvent {
  /** Stripe's event id (`evt_…`): the same event delivered twice carries the same id. */
  eventId: string;
  eventType: string;
  currency: string;
  /** When Stripe made the event (ISO 8601). */
  occurredAt: string;
  /** Refund events: Stripe's refund id and its state. */
  refundId?: string;
  refundStatus?: string;
  /** Dispute events: Stripe's dispute id. */
  disputeId?: string;
}

/**
 * The events the gateway acts on: a PaymentIntent's outcome (succeeded, authorized for a later
 * capture, failed, processing, waiting for 3-D Secure), a refund that succeeded, a dispute opened
 * (`chargeback`). Any other event is `unknown`, acknowledged and not acted on. `charge.refunded`
 * is among those: the refund events tell each refund with its own id and amount.
 */
export function providerEventOf(event: Stripe.Event): StripeProviderEvent {
  const base = {
    eventId: event.id,
    eventType: event.type,
    occurredAt: new Date(event.created * 1000).toISOString(),
  };
  const object = event.data.object as unknown as Record<string, unknown>;
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.payment_failed':
    case 'payment_intent.processing':
    case 'payment_intent.requires_action':
      return { ...base, ...intentEvent(event.type, event.data.object) };
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed': {
      const refund = event.data.object;
      return {
        ...base,
        processorPaymentId: idOf(refund.payment_intent),
        reference: refund.metadata?.refund_id,
        outcome: refund.status === 'succeeded' ? 'refunded' : 'unknown',
        amount: refund.amount,
        currency: refund.currency,
        refundId: refund.id,
        refundStatus: refund.status ?? undefined,
      };
    }
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      return {
        ...base,
        processorPaymentId: idOf(dispute.payment_intent),
        reference: undefined,
        outcome: 'chargeback',
        amount: dispute.amount,
        currency: dispute.currency,
        disputeId: dispute.id,
      };
    }
    default:
      return {
        ...base,
        processorPaymentId: idOf(object.payment_intent) || (typeof object.id === 'string' ? object.id : ''),
        reference: undefined,
        outcome: 'unknown',
        amount: typeof object.amount === 'number' ? object.amount : 0,
        currency: typeof object.currency === 'string' ? object.currency : '',
      };
  }
}

function intentEvent(
  type: string,
  pi: Stripe.PaymentIntent,
): Omit<StripeProviderEvent, 'eventId' | 'eventType' | 'occurredAt'> {
  const common = { processorPaymentId: pi.id, reference: pi.metadata?.payment_id, currency: pi.currency };
  switch (type) {
    case 'payment_intent.succeeded':
      return { ...common, outcome: 'succeeded', amount: pi.amount_received };
    case 'payment_intent.amount_capturable_updated':
      return { ...common, outcome: 'succeeded', amount: pi.amount_capturable };
    case 'payment_intent.payment_failed':
      return {
        ...common,
        outcome: 'failed',
        amount: pi.amount,
        ...gatewayDecline(pi.last_payment_error?.decline_code ?? pi.last_payment_error?.code),
      };
    case 'payment_intent.requires_action':
      return { ...common, outcome: 'requires_action', amount: pi.amount, challengeUrl: challengeUrlOf(pi) };
    default:
      return { ...common, outcome: 'pending', amount: pi.amount };
  }
}

const idOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null && 'id' in value
      ? String(value.id)
      : '';

/**
 * The gateway's callback record of a verified event, so that the callback pipeline (its
 * deduplication by eventId included) carries Stripe's events; `parseStripeCallback` reads it back.
 * Its status is the outcome, `refund_failed` for a refund Stripe failed or canceled, and the event
 * type for any event the gateway does not act on (so the stored record says what it was).
 */
export function callbackOf(event: StripeProviderEvent): ProviderCallback {
  return {
    eventId: event.eventId,
    transactionId: event.processorPaymentId,
    status: statusOf(event),
    amount: event.amount,
    currency: event.currency,
    timestamp: event.occurredAt,
    providerData: {
      eventType: event.eventType,
      ...(event.reference !== undefined ? { reference: event.reference } : {}),
      ...(event.declineCode !== undefined ? { declineCode: event.declineCode } : {}),
      ...(event.declineReason !== undefined ? { declineReason: event.declineReason } : {}),
      ...(event.challengeUrl !== undefined ? { challengeUrl: event.challengeUrl } : {}),
      ...(event.refundId !== undefined ? { refundId: event.refundId } : {}),
      ...(event.disputeId !== undefined ? { disputeId: event.disputeId } : {}),
    },
  };
}

function statusOf(event: StripeProviderEvent): string {
  if (event.refundStatus === 'failed' || event.refundStatus === 'canceled') return 'refund_failed';
  return event.outcome === 'unknown' ? event.eventType : event.outcome;
}

const OUTCOMES: readonly ProviderEvent['outcome'][] = [
  'succeeded',
  'failed',
  'pending',
  'requires_action',
  'refunded',
  'chargeback',
];

export function parseStripeCallback(callback: ProviderCallback): ProviderEvent {
  const data = callback.providerData ?? {};
  const text = (name: string) => (typeof data[name] === 'string' ? data[name] : undefined);
  const outcome = OUTCOMES.find((o) => o === callback.status) ?? 'unknown';
  return {
    processorPaymentId: callback.transactionId,
    reference: text('reference'),
    outcome,
    declineCode: text('declineCode'),
    declineReason: text('declineReason'),
    challengeUrl: text('challengeUrl'),
    amount: callback.amount,
  };
}
