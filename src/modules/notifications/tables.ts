/** Merchant settings, webhook deliveries and notices belong to the notifications module, which keeps and sends them. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export interface MerchantSettingsTable {
  merchant_id: number;
  livemode: boolean;
  business_name: string | null;
  notify_url: string | null;
  checkout_origins: ColumnType<string[], string | undefined, string>;
  event_types: ColumnType<string[] | null, string | null | undefined, string | null>;
  /** Sealed by the vault ("<keyId>.<ciphertext>"): the gateway signs with it, so it cannot be a hash. */
  webhook_secret: string;
  previous_webhook_secret: ColumnType<string | null, string | null | undefined, string | null>;
  previous_valid_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  endpoint_disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  endpoint_disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** The hosted checkout offers wallet payments (Google Pay, Apple Pay). */
  wallet_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Decline codes retried on the next processor connection of a payment's path (none by default). */
  retry_decline_codes: ColumnType<string[], string[] | undefined, string[]>;
  updated_at: Timestamp;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  event_id: number;
  merchant_id: number;
  livemode: boolean;
  url: string;
  /** The URL's origin: the sender's connections, and the claim's places, are per endpoint. */
  endpoint: string;
  /** Deliveries with one key go out in id order (one payment's events). */
  order_key: string;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  completed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  event_id: number;
  at: Timestamp;
  url: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface DailyReportsTable {
  merchant_id: number;
  livemode: boolean;
  subject: string;
  day: ColumnType<string, string, never>;
}

export interface NoticesTable {
  id: Generated<number>;
  merchant_id: number;
  kind: string;
  to: string;
  subject: string;
  body: string;
  at: Timestamp;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

declare module '../../storage/schema.js' {
  interface Database {
    merchant_settings: MerchantSettingsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
    daily_reports: DailyReportsTable;
    notices: NoticesTable;
  }
}
