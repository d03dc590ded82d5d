/** Checkout sessions belong to the checkout-sessions module, which mints and verifies their tokens. */
import type { Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export interface CheckoutSessionsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  payment_request_id: number;
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

declare module '../../storage/schema.js' {
  interface Database {
    checkout_sessions: CheckoutSessionsTable;
  }
}
