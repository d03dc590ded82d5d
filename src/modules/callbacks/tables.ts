/** Received provider and test callbacks belong to the callbacks module, which records and processes them. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export type CallbackEventSource =
  'svc' | 'svc-gateway' | 'svcwh' | '3ds' | 'stripe' | 'adyen' | 'test/json' | 'test/form' | 'test/text';

export interface CallbackEventsTable {
  id: Generated<number>;
  source: CallbackEventSource;
  /** Required for provider sources, unique across them (one event, whichever receiver it reached). */
  event_id: string | null;
  transaction_id: string | null;
  status: string | null;
  /**
   * The whole body as received (JSON), or the form fields / query parameters of test calls. Stripe and
   * Adyen events: the gateway's callback record of the verified event (`raw_body` keeps what came).
   */
  payload: ColumnType<unknown, string, string>;
  /** The body (a GET: the query string) exactly as received; null on rows older than the column. */
  raw_body: ColumnType<string | null, string, never>;
  /** null: no signature was sent (test endpoints only). */
  signature_valid: boolean | null;
  received_at: Timestamp;
  processed_at: Timestamp | null;
  /** Why processing did not (or not yet) take effect: a handler error, an unknown status, no handler. */
  processing_error: string | null;
  /** Test callbacks only: the merchant and mode whose API key the caller sent (provider callbacks name a transaction). */
  merchant_id: ColumnType<number | null, number | null | undefined, never>;
  livemode: ColumnType<boolean | null, boolean | null | undefined, never>;
  /** A row received before events were unique across receivers that repeated this earlier one. */
  duplicate_of: ColumnType<number | null, never, never>;
  /** What processing needs of the redacted members (a 3-D Secure authentication value), sealed with the vault key. */
  sealed_secrets: ColumnType<string | null, string | null | undefined, never>;
}

declare module '../../storage/schema.js' {
  interface Database {
    callback_events: CallbackEventsTable;
  }
}
