/** Idempotency keys belong to the idempotency module, which claims, answers and purges them. */
import type { Timestamp } from '../../storage/schema.js';

export interface IdempotencyKeysTable {
  merchant_id: number;
  key: string;
  /**
   * "The same request": HMAC-SHA256 hex of method, path, key mode and the canonical body without card data
   * (http/idempotency.ts). Null on keys stored before fingerprints were keyed (migration 0023).
   */
  fingerprint: string | null;
  request_method: string;
  request_path: string;
  claim_token: string;
  claimed_at: Timestamp;
  expires_at: Timestamp;
  /** Null while the first request is still running. */
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
  /** The instance running the request (gateway_instances.id); null once released without an answer. */
  holder: string | null;
  recovery_payment_id: number | null;
  recovery_secret: string | null;
  /** The object (refund, payment request, customer) a creating request committed; its kind follows from the path. */
  recovery_object_id: number | null;
}

declare module '../../storage/schema.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}
