/**
 * The gateway's API objects as the front ends read them: one declaration each, for the checkout and
 * the control panel alike. Each declares the fields a front end uses, named and typed as the gateway
 * answers them; test/web/api-types.test.ts compares every declaration here with the answer schemas
 * of /openapi.json, so a renamed, removed or newly nullable field fails there, not in a browser.
 */

/** A page of a list (GET /payment-requests, /payments, /customers, /events, …): newest first. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** The panel's session (POST /auth/session, GET /auth/session). */
export interface Session {
  user: { id: number; email: string; role: Role };
  merchant: { id: number; name: string };
  csrfToken: string;
  checkoutUrl: string;
  /** The gateway keeps its card key in its own store: a live key issued here makes its next start refuse. */
  developmentStore: boolean;
  expiresAt: string;
}

export type Role = 'owner' | 'developer' | 'viewer';

/** The payer fields, as the payment bodies name them (POST /payments/h2h/{id}). */
export interface Payer {
  name: string;
  email: string;
  phoneNumber: string;
  address: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export type PaymentRequestStatus =
  'open' | 'processing' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded' | 'canceled' | 'expired';

/** A payment request (GET /payment-requests/{id}, POST /payment-requests). */
export interface PaymentRequest {
  paymentRequestId: number;
  amount: number;
  currency: string;
  reference: string;
  status: PaymentRequestStatus;
  amountPaid: number;
  amountRefunded: number;
  description: string | null;
  livemode: boolean;
  /** The merchant's return pages for this request's payments (absolute http(s) URLs, checked by the gateway). */
  successUrl: string | null;
  failureUrl: string | null;
  /** What the merchant already gave of the payer (its payer defaults, its customer's): not asked again. */
  payer?: Partial<Payer>;
  createDate: string;
}

/** A payment request as GET /payment-requests lists it: with its newest payment attempt, null before the first. */
export interface ListedPaymentRequest extends PaymentRequest {
  lastPayment: LastPayment | null;
}

/** A payment attempt (GET /payments/{id}, GET /payments, and the answers of the payment routes). */
export interface Payment {
  paymentId: number;
  paymentRequestId: number;
  transactionId: string | null;
  status: 'pending' | 'requires_action' | 'authorized' | 'succeeded' | 'failed' | 'canceled';
  refundStatus: 'none' | 'partially_refunded' | 'refunded';
  amount: number;
  currency: string;
  amountCaptured: number;
  amountRefunded: number;
  processor: string;
  method: string;
  payer: { name: string | null; email: string | null };
  /** The 3-D Secure page the payer must visit (status requires_action). */
  redirectUrl: string | null;
  /** A UPI intent waiting for the payer: the `upi://pay` link. */
  upiIntentUrl: string | null;
  /** A UPI payment waiting for the payer: when it lapses (gateway clock, like createDate). */
  upiExpiresAt: string | null;
  upiId: string | null;
  walletType: string | null;
  card: { brand: string; bin: string; last4: string; expiration: string } | null;
  declineCode: string | null;
  declineReason: string | null;
  threeDs: { result: string; eci: string | null } | null;
  createDate: string;
}

/**
 * A request's last payment attempt as GET /payment-requests lists it: the card by brand and last 4 only,
 * and its status as a plain string (the list's schema does not enumerate it).
 */
export interface LastPayment extends Pick<Payment, 'paymentId' | 'method' | 'payer' | 'upiId' | 'walletType'> {
  status: string;
  card: { brand: string; last4: string } | null;
}

/** GET /payment-requests/{id}/timeline, entries oldest first. */
export interface Timeline {
  entries: TimelineEntry[];
}

export type TimelineEntry =
  | { kind: 'created'; at: string; amount: number; currency: string }
  | { kind: 'event'; at: string; eventId: string; type: string }
  | { kind: 'callback'; at: string; callback: ReceivedCallback }
  | ({ kind: 'notification_attempt'; eventId: string } & DeliveryAttempt);

/** A mint of POST /payment-requests/{id}/checkout-session: the token the hosted checkout is opened with. */
export interface CheckoutSessionGrant {
  token: string;
  paymentRequestId: number;
  expiresAt: string;
}

/** A customer (GET /customers/{id}, GET /customers, POST /customers, PATCH /customers/{id}). */
export interface Customer {
  id: number;
  name: string;
  email: string;
  address: string | null;
  phone: string | null;
  memberId: string | null;
  depositsByCurrency: Record<string, number>;
  createDate: string;
}

/** GET /customers/{id}/summary: the customer and its payment requests' totals, one per currency. */
export interface CustomerSummary {
  customer: Customer;
  totals: CustomerTotals[];
}

export interface CustomerTotals {
  currency: string;
  count: number;
  amount: number;
  amountPaid: number;
  amountRefunded: number;
  net: number;
}

/** The merchant's settings for the current mode (GET /settings, PATCH /settings). */
export interface Settings {
  businessName: string | null;
  notifyUrl: string | null;
  checkoutOrigins: string[];
  /** Decline codes a card payment retries on the next processor connection of its path. */
  retryDeclineCodes: string[];
  /** null: every event type. */
  eventTypes: string[] | null;
  /** Every event type eventTypes may name: what the settings form offers. */
  availableEventTypes: string[];
  webhookSecretPrefix: string;
  endpointDisabledAt: string | null;
}

/** POST /settings/webhook-secret: the new secret, shown once. */
export interface NewWebhookSecret {
  secret: string;
  previousValidUntil: string;
}

/** An event as GET /events lists it. */
export interface EventSummary {
  id: string;
  type: string;
  created: string;
}

/** GET /events/{id}: the event and its deliveries. */
export interface EventDetail extends EventSummary {
  pendingDeliveries: number;
  attempts: DeliveryAttempt[];
}

/** POST /events/test: the outcome of the one attempt to deliver a sample event. */
export interface TestEventDelivery {
  id: string;
  type: string;
  url: string;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: { error: string; code: string; message: string } | null;
}

export interface DeliveryAttempt {
  at: string;
  url: string;
  statusCode: number | null;
  durationMs: number;
  error: { message: string } | null;
}

/** A provider or test callback the gateway received (GET /callback-events). */
export interface ReceivedCallback {
  callbackId: number;
  source: string;
  eventId: string | null;
  transactionId: string | null;
  status: string | null;
  signatureValid: boolean | null;
  receivedAt: string;
  processedAt: string | null;
  processingError: string | null;
}

/** An e-mail notice sent to the merchant's users (GET /notices). */
export interface Notice {
  at: string;
  to: string;
  subject: string;
  kind: string;
}

/** A job that used up its attempts (GET /jobs/failed). */
export interface FailedJob {
  id: number;
  kind: string;
  attempts: number;
  payload: Record<string, number>;
  lastError: string | null;
  failedAt: string | null;
}

/** GET /reports/dashboard. */
export interface Dashboard {
  from: string;
  to: string;
  days: DashboardDay[];
  approval: { approved: number; declined: number; rate: number | null };
  topDeclineReasons: Array<{ declineCode: string; declineReason: string | null; count: number }>;
}

export interface DashboardDay {
  day: string;
  currency: string;
  count: number;
  approved: number;
  declined: number;
  volume: number;
}

/** A sensitive action (GET /audit-log). */
export interface AuditEntry {
  action: string;
  target: string;
  mode: 'test' | 'live' | null;
  by: string | null;
  at: string;
}

/** GET /team. */
export interface Team {
  members: TeamMember[];
  invitations: Invitation[];
}

export interface TeamMember {
  userId: number;
  email: string;
  role: Role;
  since: string;
}

export interface Invitation {
  invitationId: number;
  email: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
  expired: boolean;
}

/** PATCH and DELETE /team/members/{id}: a changed role or a removal revokes the keys it no longer allows. */
export interface TeamMemberChange {
  apiKeysRevoked: number;
}

/** A user's API key as GET /users/{id}/apikeys lists it (never the key itself). */
export interface KeySummary {
  mode: 'test' | 'live';
  prefix: string;
  createdAt: string;
  exposedAt: string | null;
}

/**
 * A connection to a processor (GET /processor-connections, POST, GET/PATCH /processor-connections/{id}).
 * Its credentials are write-only: no answer carries them.
 */
export interface ProcessorConnection {
  connectionId: string;
  processor: 'stripe' | 'adyen' | 'sandbox';
  name: string | null;
  mode: 'test' | 'live';
  slots: Array<'acme' | 'globex' | 'h2h'>;
  priority: number;
  health: 'ok' | 'degraded' | 'open';
  createdAt: string;
}
