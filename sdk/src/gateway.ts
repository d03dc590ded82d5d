import createClient, { type Client } from 'openapi-fetch';
import { ConnectionError, errorFromAnswer } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import { DEFAULT_RETRY_POLICY, IDEMPOTENCY_HEADER, retryingFetch, type RetryPolicy } from './retrying-fetch.js';
import { verifyWebhook } from './webhooks.js';

type Schemas = components['schemas'];
export type PaymentRequest = Schemas['PaymentRequest'];
export type CreatePaymentRequestBody = Schemas['CreatePaymentRequestBody'];
export type PaymentRequestList = Schemas['ListPaymentRequestsResponse'];
export type PaymentRequestStatus = Schemas['GetPaymentRequestStatusResponse'];
export type PaymentRequestTimeline = Schemas['GetPaymentRequestTimelineResponse'];
export type Payment = Schemas['Payment'];
export type PaymentList = Schemas['ListPaymentsResponse'];
export type H2hPaymentBody = Schemas['SubmitH2hPaymentBody'];
export type CardPaymentBody = Schemas['CardPaymentBody'];
export type WalletPaymentBody = Schemas['SubmitWalletPaymentBody'];
export type RefundBody = Schemas['RefundBody'];
export type Refund = Schemas['Refund'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type Customer = Schemas['Customer'];
export type CustomerList = Schemas['ListCustomersResponse'];
export type CustomerSummary = Schemas['GetCustomerSummaryResponse'];
export type CreateCustomerBody = Schemas['CreateCustomerBody'];
export type UpdateCustomerBody = Schemas['UpdateCustomerBody'];
type Query<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;
export type PaymentRequestListQuery = Query<'listPaymentRequests'>;
export type PaymentListQuery = Query<'listPayments'>;
export type CustomerListQuery = Query<'listCustomers'>;
/** The processors a card can be sent to by name (POST /payments/creditCard/{processor}/{id}). */
export type CardProcessor = 'acme' | 'globex';

export interface GatewayOptions {
  /** A secret API key (`svc_test_sk_…` or `svc_live_sk_…`). Server-side only. */
  apiKey: string;
  /** The gateway's address, e.g. https://pay.example.com (a /v2 suffix is fine too). */
  baseUrl: string;
  /** Retries of connection errors, 429 and 5xx; `{ maxRetries: 0 }` turns them off. */
  retry?: Partial<RetryPolicy>;
  /** Sent as X-API-Version (default: the gateway's current version). */
  apiVersion?: string;
  /** The fetch to use (default: the global fetch of Node 20+). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface RequestOptions {
  /** The idempotency key of a POST; default: a random UUID made for this call (the same on its retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** More request headers (the sandbox's X-Sandbox-Callback, …). */
  headers?: Record<string, string>;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The gateway's API for a merchant's server: one object per resource, each method one operation of
 * /openapi.json with its generated types. A method resolves to the answer's body or rejects with a
 * GatewayError (errors.ts); POSTs are idempotent and retried (retrying-fetch.ts).
 */
export class Gateway {
  /** Verifies a notification's signature (webhooks.ts); static: it needs the secret, not a client. */
  static readonly webhooks = { verify: verifyWebhook };

  readonly paymentRequests: PaymentRequests;
  readonly payments: Payments;
  readonly checkoutSessions: CheckoutSessions;
  readonly customers: Customers;
  readonly refunds: Refunds;

  constructor(options: GatewayOptions) {
    // An API key in a browser page is a key anyone can read: the SDK runs on servers only.
    if ('window' in globalThis || 'document' in globalThis)
      throw new Error(
        'The SVC gateway SDK runs on servers only: an API key in a browser page can be read by anyone. ' +
          'Mint a checkout session on your server (gateway.checkoutSessions.create) and use the hosted checkout instead.',
      );
    if (!options?.apiKey) throw new Error('Gateway: apiKey is required');
    if (!options.baseUrl) throw new Error('Gateway: baseUrl is required');
    const client = createClient<paths>({
      baseUrl: options.baseUrl,
      headers: {
        'X-API-Key': options.apiKey,
        ...(options.apiVersion ? { 'X-API-Version': options.apiVersion } : {}),
      },
      fetch: retryingFetch({ ...DEFAULT_RETRY_POLICY, ...options.retry }, options.fetch),
    });
    const call = caller(client);
    this.paymentRequests = new PaymentRequests(call);
    this.payments = new Payments(call);
    this.checkoutSessions = new CheckoutSessions(call);
    this.customers = new Customers(call);
    this.refunds = new Refunds(call);
  }
}

type Call = <T>(
  send: (client: Client<paths>, init: RequestInitOf) => Promise<Answer<T>>,
  options?: RequestOptions,
) => Promise<T>;
type RequestInitOf = { headers: Record<string, string>; signal?: AbortSignal };

function caller(client: Client<paths>): Call {
  return async (send, options = {}) => {
    const headers = {
      ...options.headers,
      ...(options.idempotencyKey ? { [IDEMPOTENCY_HEADER]: options.idempotencyKey } : {}),
    };
    let answer;
    try {
      answer = await send(client, { headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ConnectionError({
        status: 0,
        error: 'CONNECTION_FAILED',
        code: '',
        message: `The gateway could not be reached: ${(error as Error).message}`,
        shape: 'none',
        cause: error,
      });
    }
    if (answer.response.ok) return answer.data as never;
    throw errorFromAnswer(answer.response.status, answer.error, answer.response.headers);
  };
}

class PaymentRequests {
  constructor(private readonly call: Call) {}
  create(body: CreatePaymentRequestBody, options?: RequestOptions): Promise<PaymentRequest> {
    return this.call((c, init) => c.POST('/payment-requests', { body, ...init }), options);
  }
  get(id: number, options?: RequestOptions): Promise<PaymentRequest> {
    return this.call((c, init) => c.GET('/payment-requests/{id}', { params: { path: { id } }, ...init }), options);
  }
  list(query: PaymentRequestListQuery = {}, options?: RequestOptions): Promise<PaymentRequestList> {
    return this.call((c, init) => c.GET('/payment-requests', { params: { query }, ...init }), options);
  }
  status(id: number, options?: RequestOptions): Promise<PaymentRequestStatus> {
    return this.call(
      (c, init) => c.GET('/payment-requests/status/{id}', { params: { path: { id } }, ...init }),
      options,
    );
  }
  timeline(id: number, options?: RequestOptions): Promise<PaymentRequestTimeline> {
    return this.call(
      (c, init) => c.GET('/payment-requests/{id}/timeline', { params: { path: { id } }, ...init }),
      options,
    );
  }
  cancel(id: number, options?: RequestOptions): Promise<PaymentRequest> {
    return this.call(
      (c, init) => c.POST('/payment-requests/{id}/cancel', { params: { path: { id } }, ...init }),
      options,
    );
  }
}

class Payments {
  constructor(private readonly call: Call) {}
  /** Pays a payment request host to host: a card, a stored card token or UPI. A decline rejects with PaymentDeclinedError. */
  h2h(paymentRequestId: number, body: H2hPaymentBody, options?: RequestOptions): Promise<Payment> {
    return this.call(
      (c, init) => c.POST('/payments/h2h/{id}', { params: { path: { id: paymentRequestId } }, body, ...init }),
      options,
    );
  }
  /** Pays a payment request by card through one named processor (no failover). */
  card(
    processor: CardProcessor,
    paymentRequestId: number,
    body: CardPaymentBody,
    options?: RequestOptions,
  ): Promise<Payment> {
    const path = { params: { path: { id: paymentRequestId } }, body };
    return this.call(
      (c, init) =>
        processor === 'acme'
          ? c.POST('/payments/creditCard/acme/{id}', { ...path, ...init })
          : c.POST('/payments/creditCard/globex/{id}', { ...path, ...init }),
      options,
    );
  }
  /** Pays a payment request with a Google Pay or Apple Pay token. */
  wallet(paymentRequestId: number, body: WalletPaymentBody, options?: RequestOptions): Promise<Payment> {
    return this.call(
      (c, init) => c.POST('/payments/wallet/{id}', { params: { path: { id: paymentRequestId } }, body, ...init }),
      options,
    );
  }
  get(paymentId: number, options?: RequestOptions): Promise<Payment> {
    return this.call(
      (c, init) => c.GET('/payments/{paymentId}', { params: { path: { paymentId } }, ...init }),
      options,
    );
  }
  list(query: PaymentListQuery = {}, options?: RequestOptions): Promise<PaymentList> {
    return this.call((c, init) => c.GET('/payments', { params: { query }, ...init }), options);
  }
  /** Captures an authorized payment now instead of at its scheduled time. */
  capture(paymentId: number, options?: RequestOptions): Promise<Payment> {
    return this.call(
      (c, init) => c.POST('/payments/{paymentId}/capture', { params: { path: { paymentId } }, ...init }),
      options,
    );
  }
  /** Voids an authorized payment (POST /payments/{paymentId}/cancel). */
  void(paymentId: number, options?: RequestOptions): Promise<Payment> {
    return this.call(
      (c, init) => c.POST('/payments/{paymentId}/cancel', { params: { path: { paymentId } }, ...init }),
      options,
    );
  }
  /** Refunds a captured payment, fully (no amount) or partly. */
  refund(paymentId: number, body: RefundBody = {}, options?: RequestOptions): Promise<Refund> {
    return this.call(
      (c, init) => c.POST('/payments/{paymentId}/refunds', { params: { path: { paymentId } }, body, ...init }),
      options,
    );
  }
}

class Refunds {
  constructor(private readonly call: Call) {}
  /** Refunds a captured payment, fully (no amount) or partly: the same as payments.refund. */
  create(paymentId: number, body: RefundBody = {}, options?: RequestOptions): Promise<Refund> {
    return this.call(
      (c, init) => c.POST('/payments/{paymentId}/refunds', { params: { path: { paymentId } }, body, ...init }),
      options,
    );
  }
}

class CheckoutSessions {
  constructor(private readonly call: Call) {}
  /** A checkout session token (15 minutes) for the hosted checkout of one payment request: hand it to the browser. */
  create(paymentRequestId: number, options?: RequestOptions): Promise<CheckoutSession> {
    return this.call(
      (c, init) =>
        c.POST('/payment-requests/{paymentRequestId}/checkout-session', {
          params: { path: { paymentRequestId } },
          body: {},
          ...init,
        }),
      options,
    );
  }
}

class Customers {
  constructor(private readonly call: Call) {}
  create(body: CreateCustomerBody, options?: RequestOptions): Promise<Customer> {
    return this.call((c, init) => c.POST('/customers', { body, ...init }), options);
  }
  get(id: number, options?: RequestOptions): Promise<Customer> {
    return this.call((c, init) => c.GET('/customers/{id}', { params: { path: { id } }, ...init }), options);
  }
  list(query: CustomerListQuery = {}, options?: RequestOptions): Promise<CustomerList> {
    return this.call((c, init) => c.GET('/customers', { params: { query }, ...init }), options);
  }
  update(id: number, body: UpdateCustomerBody, options?: RequestOptions): Promise<Customer> {
    return this.call((c, init) => c.PATCH('/customers/{id}', { params: { path: { id } }, body, ...init }), options);
  }
  summary(id: number, options?: RequestOptions): Promise<CustomerSummary> {
    return this.call((c, init) => c.GET('/customers/{id}/summary', { params: { path: { id } }, ...init }), options);
  }
}
