import type { PaymentView } from './schemas.js';

/** The refund as its events carry it. */
export interface RefundEvent {
  refundId: number;
  paymentId: number;
  /** Minor units. */
  amount: number;
  currency: string;
  status: 'succeeded' | 'failed';
}

declare module '../events/catalog.js' {
  interface EventCatalog {
    'payment.succeeded': PaymentView;
    'payment.failed': PaymentView;
    'payment.requires_action': PaymentView;
    'payment.authorized': PaymentView;
    'payment.canceled': PaymentView;
    'refund.succeeded': RefundEvent;
    'refund.failed': RefundEvent;
  }
}

export type PaymentEventType =
  'payment.succeeded' | 'payment.failed' | 'payment.requires_action' | 'payment.authorized' | 'payment.canceled';
