/** Payments, the cards they charge and their refunds belong to the payments module, and so do their statuses. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export type PaymentStatus = 'pending' | 'requires_action' | 'authorized' | 'succeeded' | 'failed' | 'canceled';

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface CardsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  token_hash: string;
  pan_ciphertext: string;
  key_id: string;
  fingerprint: string;
  brand: string;
  bin: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  holder_name: string;
  usable: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

/** What a payment keeps of its 3-D Secure authentication. */
export interface ThreeDsRecord {
  /** Y, N, A, U or R. */
  result: string;
  eci: string | null;
  /** The CAVV/AAV, sealed by the card vault. */
  authenticationValue: string | null;
}

export interface PaymentsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  payment_request_id: number;
  status: PaymentStatus;
  method: 'card' | 'token' | 'upi' | 'wallet';
  /** A sandbox processor's name (acme, globex, wallet, upi), or the real processor: stripe, adyen. */
  processor: string;
  /** The merchant's processor connection (`pc_…`) the attempt went through; null for the built-in sandbox. */
  processor_connection_id: ColumnType<string | null, string | null | undefined, string | null>;
  processor_payment_id: string | null;
  /** Integer minor units. */
  amount: number;
  currency: string;
  amount_captured: ColumnType<number, number | undefined, number>;
  amount_refunded: ColumnType<number, number | undefined, number>;
  card_id: number | null;
  capture_delay_hours: ColumnType<number, number | undefined, number>;
  capture_at: Timestamp | null;
  decline_code: string | null;
  decline_reason: string | null;
  failure_code: string | null;
  challenge_url: string | null;
  /** A UPI intent's `upi://pay` link (payee, amount, currency, reference). */
  upi_intent_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why a failed payment failed, as its error shows it (threeDsResult, acsResponse, upiResponse…). */
  failure_details: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** 3-D Secure result: { result, eci, authenticationValue (sealed) }; never logged. */
  three_ds: ColumnType<ThreeDsRecord | null, string | null | undefined, string | null>;
  /** Payer details as submitted (name, email, phone, address…), never card data. */
  payer: ColumnType<Record<string, unknown>, string, string>;
  /** Submission options (is3ds, referenceId, notifyUrl, successUrl, failureUrl, originDomain, ipAddress, browserInfo). */
  options: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RefundsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  payment_id: number;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  processor_refund_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../storage/schema.js' {
  interface Database {
    cards: CardsTable;
    payments: PaymentsTable;
    refunds: RefundsTable;
  }
}
