/** Payment requests and their statuses belong to the payment-requests module, which owns their lifecycle. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export type PaymentRequestStatus =
  'open' | 'processing' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded' | 'canceled' | 'expired';

export interface PaymentRequestsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  /** Integer minor units of currency. */
  amount: number;
  currency: string;
  reference: string;
  description: string | null;
  metadata: ColumnType<Record<string, string>, string | undefined, string>;
  customer_id: number | null;
  status: PaymentRequestStatus;
  amount_paid: ColumnType<number, number | undefined, number>;
  amount_refunded: ColumnType<number, number | undefined, number>;
  expires_at: Timestamp | null;
  /** The merchant's options for its payments (a submission with an API key may name others). */
  notify_url: ColumnType<string | null, string | null | undefined, string | null>;
  success_url: ColumnType<string | null, string | null | undefined, string | null>;
  failure_url: ColumnType<string | null, string | null | undefined, string | null>;
  capture_delay_hours: ColumnType<number, number | undefined, number>;
  /** Payer fields the hosted checkout need not ask (the spec's payer field names), as JSON. */
  payer: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../storage/schema.js' {
  interface Database {
    payment_requests: PaymentRequestsTable;
  }
}
