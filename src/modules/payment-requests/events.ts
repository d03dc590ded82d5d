import type { PaymentRequestRecord } from './schemas.js';

declare module '../events/catalog.js' {
  interface EventCatalog {
    'payment_request.expired': PaymentRequestRecord;
  }
}

export type PaymentRequestEventType = 'payment_request.expired';
