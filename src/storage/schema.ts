import type { ColumnType, Generated } from 'kysely';

/** Kysely table types. Every merchant-owned table carries merchant_id (see docs/decisions.md). */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type MerchantStatus = 'active' | 'restricted' | 'suspended';
export type KeyMode = 'test' | 'live';
/** owner: everything, the audit log included; developer: all but the audit log; viewer: reads only. */
export type UserRole = 'owner' | 'developer' | 'viewer';

export interface MerchantsTable {
  id: Generated<number>;
  name: string;
  status: ColumnType<MerchantStatus, MerchantStatus | undefined, MerchantStatus>;
  default_processor: ColumnType<string, string | undefined, string>;
  notify_url: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  merchant_id: number;
  email: string;
  password_hash: string;
  role: ColumnType<UserRole, UserRole | undefined, UserRole>;
  created_at: CreatedAt;
  /** Removed from the merchant's team: the row stays (keys, customers, audit entries name it), sign-in does not. */
  removed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Moves on when every session and access token of the user must end (a password change or reset). */
  token_generation: ColumnType<number, number | undefined, number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  merchant_id: number;
  user_id: number;
  mode: KeyMode;
  key_hash: string;
  /** First characters of the key, for display ("svc_test_sk_Ab12…"). */
  display_prefix: string;
  created_at: CreatedAt;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Set when the key was seen somewhere public (legacy checkout URL). */
  exposed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A signed-in control-panel browser (the cookie's token only as a hash). */
export interface PanelSessionsTable {
  id: Generated<number>;
  user_id: number;
  merchant_id: number;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** The user's token generation when the session was opened: another one ends the session. */
  token_generation: ColumnType<number, number | undefined, number>;
}

export type AccountLinkKind = 'password_reset' | 'sign_in';

/** A single-use e-mailed link of a user; the token only as a hash (modules/auth). */
export interface AccountLinksTable {
  id: Generated<number>;
  user_id: number;
  merchant_id: number;
  kind: AccountLinkKind;
  token_hash: string;
  /** Random; with the gateway's secret it gives the token back when the e-mail is sent (not the token). */
  token_nonce: string;
  notice_id: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Used, or ended by a password change or reset. */
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** An invitation to a merchant's team; the link's token only as a hash (modules/team). */
export interface TeamInvitationsTable {
  id: Generated<number>;
  merchant_id: number;
  email: string;
  role: UserRole;
  token_hash: string;
  /** Random; with the gateway's secret it gives the token back when the e-mail is sent (not the token). */
  token_nonce: string;
  invited_by: number;
  notice_id: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A sensitive action (key rotation, refund, settings change), who did it and when. */
export interface AuditLogTable {
  id: Generated<number>;
  merchant_id: number;
  user_id: number | null;
  livemode: boolean | null;
  action: string;
  /** The request's path: what was acted on. */
  target: string;
  request_id: string;
  at: Timestamp;
}

/** Consecutive failed sign-ins of one typed e-mail from one client address. */
export interface LoginFailuresTable {
  /** Lower-cased e-mail as typed: tracked whether or not an account exists, so locking reveals nothing. */
  email: string;
  /** The client address (the request's IP, after TRUSTED_PROXIES). */
  address: string;
  failures: number;
  locked_until: Timestamp | null;
  updated_at: Timestamp;
}

/** Failed sign-ins of one typed e-mail from every address, in windows: the account-wide safety net. */
export interface SignInGuardsTable {
  email: string;
  failures: number;
  window_started_at: Timestamp;
  /** Until then a right password alone does not sign in: it gets an e-mailed sign-in link. */
  guarded_until: Timestamp | null;
  /** The last lock-out notice to the account's merchant: at most one per lock period. */
  noticed_at: Timestamp | null;
}

export interface SystemSecretsTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  merchant_id: number | null;
  payload: ColumnType<unknown, string, string>;
  dedupe_key: string | null;
  run_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: number;
  locked_until: Timestamp | null;
  last_error: string | null;
  completed_at: Timestamp | null;
  failed_at: Timestamp | null;
  created_at: CreatedAt;
}

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

export interface CustomersTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  /** The user whose API key created the record (spec field userId). */
  user_id: number;
  name: string;
  email: string;
  address: string | null;
  phone: string | null;
  member_id: string | null;
  /** ISO 3166-1 alpha-2, as the payer field country. */
  country: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CallbackEventSource = 'svc' | 'svc-gateway' | 'svcwh' | '3ds' | 'test/json' | 'test/form' | 'test/text';

export interface CallbackEventsTable {
  id: Generated<number>;
  source: CallbackEventSource;
  /** Required for provider sources, unique across them (one event, whichever receiver it reached). */
  event_id: string | null;
  transaction_id: string | null;
  status: string | null;
  /** The whole body as received (JSON), or the form fields / query parameters of test calls. */
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

export interface GatewayInstancesTable {
  id: string;
  started_at: Timestamp;
  seen_at: Timestamp;
  /** The highest API-key cache barrier this instance has seen (migration 0012). */
  key_cache_seen: ColumnType<number, number | undefined, number>;
}

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
  processor: string;
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

export interface OutboxEventsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  type: string;
  object_id: number;
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

/** An outbox event not yet handed to delivery (its webhook_deliveries not yet written). */
export interface OutboxQueueTable {
  event_id: number;
  merchant_id: number;
}

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

export interface Database {
  cards: CardsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  outbox_events: OutboxEventsTable;
  outbox_queue: OutboxQueueTable;
  merchant_settings: MerchantSettingsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  daily_reports: DailyReportsTable;
  notices: NoticesTable;
  callback_events: CallbackEventsTable;
  payment_requests: PaymentRequestsTable;
  customers: CustomersTable;
  checkout_sessions: CheckoutSessionsTable;
  idempotency_keys: IdempotencyKeysTable;
  gateway_instances: GatewayInstancesTable;
  jobs: JobsTable;
  merchants: MerchantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  login_failures: LoginFailuresTable;
  sign_in_guards: SignInGuardsTable;
  account_links: AccountLinksTable;
  panel_sessions: PanelSessionsTable;
  audit_log: AuditLogTable;
  team_invitations: TeamInvitationsTable;
  system_secrets: SystemSecretsTable;
}
