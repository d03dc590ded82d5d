import { createHmac, randomUUID } from 'node:crypto';
import { notificationHmac } from '../../simulators/adyen/index.js';
import type { Operation } from './contract.js';
import { expectOk, json, send } from './http.js';

/** What the fuzzer needs of a running gateway: where it is, two fresh accounts, the callback secret. */
export interface FuzzTarget {
  url: string;
  callbackSecret: string;
  /** A new merchant with a test API key (and its owner's credentials). */
  merchant(): Promise<{ apiKey: string; email: string; password: string; userId: number; merchantId: number }>;
  /** A new developer of the merchant (what an accepted invitation makes): their user id. */
  teammate(merchant: { merchantId: number }): Promise<number>;
  /** The token of an invitation's link, as its e-mail carries it. */
  invitationToken(invitationId: number): Promise<string>;
  /** A new teammate of the merchant who can sign in: their e-mail and password. */
  teammateCredentials(merchant: { merchantId: number }): Promise<{ email: string; password: string }>;
  /** The token of a password-reset or sign-in link e-mailed to a new teammate of the merchant. */
  accountLinkToken(merchant: { merchantId: number }, kind: 'password_reset' | 'sign_in'): Promise<string>;
  /** A job of the merchant that failed on every attempt (what the panel lists and retries): its id. */
  failedJob(merchant: { merchantId: number }): Promise<number>;
}

/**
 * A valid request of one operation, before the fuzzer's own changes: the path values, the query,
 * and the members of the body whose validity depends on data (ids, amounts, card numbers) rather
 * than on the schema. `credentials` are the headers that authenticate it.
 */
export interface Fixture {
  path: Record<string, string | number>;
  query?: Record<string, unknown>;
  /** Applied to the schema-generated body: returns the body to send. */
  body?: (generated: any) => unknown;
  credentials: Record<string, string>;
}

/** Sandbox cards that pay (decisions.md "Sandbox behaviour"), and ones that are declined (402). */
const PAYING_CARDS = ['4242424242424242', '5555555555554444', '4111111111111111'];
const DECLINED_CARDS = ['4000000000000002', '4000000000009995'];
const AMOUNT = 10.5;

/** The accounts and objects the fuzzer's valid requests refer to; fresh objects are made on demand. */
export class World {
  private apiKey = '';
  /**
   * The account the generated connections (Stripe and Adyen among them, with made-up credentials) are
   * made on: on the probes' account they would route its payments to processors this machine cannot
   * reach, which then rightly answer 502.
   */
  private connectingApiKey = '';
  private jwt = '';
  /** The owner's control-panel session (cookie and CSRF token), for the panel's own routes. */
  private panel: Record<string, string> = {};
  private user = { userId: 0, email: '', password: '', merchantId: 0 };
  private customerIds: number[] = [];
  private eventIds: string[] = [];
  private requestIds: number[] = [];
  private paymentIds: number[] = [];
  private connectionIds: string[] = [];
  /** The connecting account's Stripe and Adyen connections, whose webhook receivers the probes call. */
  private receivers = { stripe: '', adyen: '' };
  private n = 0;
  /** Requests sent to build the world (not counted as probes). */
  setupRequests = 0;

  constructor(private readonly target: FuzzTarget) {}

  async init(): Promise<void> {
    this.apiKey = (await this.target.merchant()).apiKey;
    this.connectingApiKey = (await this.target.merchant()).apiKey;
    // A second account owns the JWT: rotating its keys must not disturb the one the probes use.
    const owner = await this.target.merchant();
    this.user = owner;
    const login = await expectOk(
      json(this.target.url, 'POST', '/auth/login', undefined, { email: owner.email, password: owner.password }),
      'login',
    );
    this.jwt = login.accessToken;
    this.panel = await this.panelSession();
    for (let i = 0; i < 3; i++) this.customerIds.push(await this.customer());
    for (let i = 0; i < 3; i++) this.requestIds.push(await this.openRequest());
    for (let i = 0; i < 2; i++) this.connectionIds.push(await this.connection());
    this.receivers = { stripe: await this.webhookConnection('stripe'), adyen: await this.webhookConnection('adyen') };
    this.paymentIds.push(await this.payment(0));
    // Events exist from the payment; a default notification URL makes them re-sendable.
    await this.call('PATCH', '/settings', { notifyUrl: 'https://shop.example/hooks' });
    this.eventIds = (await this.call('GET', '/events')).data.map((event: { id: string }) => event.id);
  }

  private call(method: string, path: string, body?: unknown) {
    this.setupRequests++;
    return expectOk(json(this.target.url, method, path, this.apiKey, body), `${method} ${path}`);
  }

  private unique = () => `${Date.now().toString(36)}-${++this.n}-${randomUUID().slice(0, 8)}`;
  private pick = <T>(list: T[], seed: number) => list[Math.abs(seed) % list.length];

  private async customer(): Promise<number> {
    return (await this.call('POST', '/customers', { name: 'Fuzz Customer', email: `c${this.unique()}@example.com` }))
      .id;
  }

  /** A sandbox connection of the API key's merchant (test mode). */
  private async connection(): Promise<string> {
    this.setupRequests++;
    const res = await json(this.target.url, 'POST', '/processor-connections', this.apiKey, {
      processor: 'sandbox',
      slots: ['acme'],
    });
    if (res.status !== 201) throw new Error(`connection: expected 201, got ${res.status} ${res.text.slice(0, 300)}`);
    return (res.body as { connectionId: string }).connectionId;
  }

  /** A Stripe or Adyen connection with known webhook secrets, on the connecting account (it makes no payments). */
  private async webhookConnection(processor: 'stripe' | 'adyen'): Promise<string> {
    this.setupRequests++;
    const credentials =
      processor === 'stripe'
        ? { secretKey: 'sk_test_fuzz', webhookSecret: STRIPE_WEBHOOK_SECRET }
        : { apiKey: 'fuzz', merchantAccount: ADYEN_MERCHANT, hmacKey: ADYEN_HMAC_KEY, environment: 'test' };
    const res = await json(this.target.url, 'POST', '/processor-connections', this.connectingApiKey, {
      processor,
      credentials,
      slots: ['globex'],
    });
    if (res.status !== 201) throw new Error(`${processor} connection: got ${res.status} ${res.text.slice(0, 300)}`);
    return (res.body as { connectionId: string }).connectionId;
  }

  /**
   * The signature a provider puts on a body, exactly as sent: the gateway's own callbacks' header, or
   * Stripe's. Adyen signs each item inside the body (the fixture's body carries it), so a changed body
   * is rightly refused as unsigned.
   */
  signatureHeaders(op: Operation, raw: string | Uint8Array): Record<string, string> {
    if (op.path === '/callbacks/adyen/{connectionId}') return {};
    if (op.path === '/callbacks/stripe/{connectionId}') {
      // Stripe signs its events' text: its SDK checks the signature over the body read as UTF-8.
      const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
      const t = Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', STRIPE_WEBHOOK_SECRET).update(`${t}.${text}`).digest('hex');
      return { 'stripe-signature': `t=${t},v1=${v1}` };
    }
    return { 'x-webhook-signature': this.sign(raw) };
  }

  private async openRequest(): Promise<number> {
    return (
      await this.call('POST', '/payment-requests', {
        amount: AMOUNT,
        currency: 'EUR',
        reference: `fuzz-${this.unique()}`,
      })
    ).paymentRequestId;
  }

  private async payment(captureDelayHours: number): Promise<number> {
    const id = await this.openRequest();
    const paid = await this.call('POST', `/payments/creditCard/acme/${id}`, {
      ...PAYER,
      number: PAYING_CARDS[0],
      expiration: '12/30',
      cvv: '123',
      captureDelayHours,
    });
    return paid.paymentId;
  }

  /** A fresh control-panel session of the JWT's owner (or of `user`): the headers that carry it. */
  private async panelSession(user: { email: string; password: string } = this.user): Promise<Record<string, string>> {
    this.setupRequests++;
    const res = await json(this.target.url, 'POST', '/auth/session', undefined, {
      email: user.email,
      password: user.password,
    });
    if (res.status !== 200) throw new Error(`panel sign-in: expected 200, got ${res.status} ${res.text.slice(0, 300)}`);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    return { cookie, 'x-csrf-token': (res.body as { csrfToken: string }).csrfToken };
  }

  /** A fresh invitation to the owner's team (changes are the owner's, through the panel session). */
  private async invitation(): Promise<number> {
    this.setupRequests++;
    const res = await send(this.target.url, {
      method: 'POST',
      path: '/team/invitations',
      headers: { ...this.panel, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `t${this.unique()}@example.com`, role: 'viewer' }),
    });
    if (res.status !== 201) throw new Error(`invitation: expected 201, got ${res.status} ${res.text.slice(0, 300)}`);
    return (res.body as { invitationId: number }).invitationId;
  }

  /** Signs a raw callback body as the processors do. */
  sign(raw: string | Uint8Array): string {
    return createHmac('sha512', this.target.callbackSecret).update(raw).digest('hex');
  }

  /** The valid request of `op` (fresh objects where the operation consumes one). */
  async fixture(op: Operation, seed: number): Promise<Fixture> {
    const apiKey = { 'x-api-key': this.apiKey };
    const card = (generated: any) => ({
      ...generated,
      ...PAYER_FIXED,
      number: this.pick(seed % 5 === 0 ? DECLINED_CARDS : PAYING_CARDS, seed),
      expiration: '12/30',
      cvv: '123',
      is3ds: false,
      wallet: undefined,
      token: undefined,
      upiId: undefined,
      ...URLS,
    });
    switch (op.id) {
      case 'POST /auth/login':
        return { path: {}, credentials: {}, body: () => ({ email: this.user.email, password: this.user.password }) };
      case 'PUT /users/{userId}/apikey':
      case 'GET /users/{userId}/apikeys':
        return { path: { userId: this.user.userId }, credentials: { authorization: `Bearer ${this.jwt}` } };
      case 'POST /auth/session':
        return { path: {}, credentials: {}, body: () => ({ email: this.user.email, password: this.user.password }) };
      case 'GET /auth/session':
        return { path: {}, credentials: this.panel };
      case 'GET /audit-log':
        return { path: {}, credentials: this.panel, query: { cursor: undefined } };
      case 'GET /team':
        return { path: {}, credentials: this.panel };
      case 'GET /jobs/failed':
        return { path: {}, credentials: this.panel, query: { cursor: undefined } };
      case 'POST /jobs/{jobId}/retry':
        // A retried job is pending again: each probe retries a failed job of its own.
        return { path: { jobId: await this.target.failedJob(this.user) }, credentials: this.panel };
      case 'POST /team/invitations':
        return { path: {}, credentials: this.panel, body: (g) => ({ ...g, email: `t${this.unique()}@example.com` }) };
      case 'DELETE /team/invitations/{invitationId}':
        return { path: { invitationId: await this.invitation() }, credentials: this.panel };
      case 'PATCH /team/members/{userId}':
      case 'DELETE /team/members/{userId}':
        return { path: { userId: await this.target.teammate(this.user) }, credentials: this.panel };
      case 'POST /team/invitations/accept': {
        const token = await this.target.invitationToken(await this.invitation());
        return { path: {}, credentials: {}, body: (g) => ({ ...g, token, password: 'fuzz password, long enough' }) };
      }
      case 'POST /auth/password-reset/confirm': {
        const token = await this.target.accountLinkToken(this.user, 'password_reset');
        return { path: {}, credentials: {}, body: (g) => ({ ...g, token, password: 'fuzz password, long enough' }) };
      }
      case 'POST /auth/session/link': {
        const token = await this.target.accountLinkToken(this.user, 'sign_in');
        return { path: {}, credentials: {}, body: (g) => ({ ...g, token }) };
      }
      case 'PUT /auth/password': {
        // A teammate of its own: the change ends the user's other sessions and access tokens.
        const teammate = await this.target.teammateCredentials(this.user);
        return {
          path: {},
          credentials: await this.panelSession(teammate),
          body: (g) => ({ ...g, currentPassword: teammate.password, newPassword: 'fuzz password, long enough' }),
        };
      }
      case 'DELETE /auth/session':
        // Signing out ends the session: each probe signs out a session of its own.
        return { path: {}, credentials: await this.panelSession() };
      case 'POST /payment-requests':
        return {
          path: {},
          credentials: apiKey,
          body: (g) => ({
            ...g,
            currency: 'EUR',
            customerId: seed % 2 ? this.pick(this.customerIds, seed) : null,
            expiresAt: null,
            notifyUrl: null,
            successUrl: null,
            failureUrl: null,
          }),
        };
      case 'GET /customers':
      case 'GET /events':
      case 'GET /notices':
      case 'GET /callback-events':
        return { path: {}, credentials: apiKey, query: { cursor: undefined } };
      // An amount bound needs a real currency and no more decimals than it has.
      case 'GET /payment-requests':
      case 'GET /payment-requests/export/csv':
      case 'GET /payments/export/csv':
        return { path: {}, credentials: apiKey, query: { cursor: undefined, ...AMOUNTS } };
      case 'GET /reports/dashboard':
        return { path: {}, credentials: apiKey, query: { from: '2026-02-01', to: '2026-03-01' } };
      case 'GET /payment-requests/{id}/timeline':
        return { path: { id: this.pick(this.requestIds, seed) }, credentials: apiKey };
      case 'GET /customers/{id}/summary':
        return { path: { id: this.pick(this.customerIds, seed) }, credentials: apiKey };
      case 'GET /payment-requests/{id}':
      case 'GET /payment-requests/status/{id}':
        return { path: { id: this.pick(this.requestIds, seed) }, credentials: apiKey };
      case 'POST /payment-requests/{id}/cancel':
        return { path: { id: await this.openRequest() }, credentials: apiKey };
      case 'POST /payment-requests/{paymentRequestId}/checkout-session':
        return { path: { paymentRequestId: await this.openRequest() }, credentials: apiKey };
      case 'POST /customers':
        return { path: {}, credentials: apiKey, body: (g) => ({ ...g, memberId: `m-${this.unique()}` }) };
      case 'GET /customers/{id}':
        return { path: { id: this.pick(this.customerIds, seed) }, credentials: apiKey };
      case 'PATCH /customers/{id}':
        return {
          path: { id: this.pick(this.customerIds, seed) },
          credentials: apiKey,
          body: (g) => ({ ...g, name: g.name ?? 'Renamed', memberId: `m-${this.unique()}` }),
        };
      case 'POST /callbacks/stripe/{connectionId}':
        return {
          path: { connectionId: this.receivers.stripe },
          credentials: {},
          body: () => stripeEvent(this.unique()),
        };
      case 'POST /callbacks/adyen/{connectionId}':
        return {
          path: { connectionId: this.receivers.adyen },
          credentials: {},
          body: () => adyenNotification(this.unique()),
        };
      case 'POST /processor-connections':
        return {
          path: {},
          credentials: { 'x-api-key': this.connectingApiKey },
          body: (g) => ({ ...g, credentials: testModeCredentials(g.processor, g.credentials) }),
        };
      case 'GET /processor-connections/{connectionId}':
        return { path: { connectionId: this.pick(this.connectionIds, seed) }, credentials: apiKey };
      case 'PATCH /processor-connections/{connectionId}':
        // The fixtures are sandbox connections: their credentials are {} whatever shape was generated.
        return {
          path: { connectionId: this.pick(this.connectionIds, seed) },
          credentials: apiKey,
          body: (g) => ({ ...g, priority: g.priority ?? 1, credentials: g.credentials === undefined ? undefined : {} }),
        };
      case 'DELETE /processor-connections/{connectionId}':
        return { path: { connectionId: await this.connection() }, credentials: apiKey };
      case 'POST /payments/h2h/{id}':
        return {
          path: { id: await this.openRequest() },
          credentials: apiKey,
          body: (g) => ({ ...card(g), amount: AMOUNT, unit: 'EUR' }),
        };
      case 'POST /payments/creditCard/acme/{id}':
      case 'POST /payments/creditCard/globex/{id}':
        return { path: { id: await this.openRequest() }, credentials: apiKey, body: card };
      case 'POST /payments/wallet/{id}':
        return {
          path: { id: await this.openRequest() },
          credentials: apiKey,
          body: (g) => ({ ...g, ...PAYER_FIXED, is3ds: false, ...URLS }),
        };
      case 'GET /payments/{paymentId}':
        return { path: { paymentId: this.pick(this.paymentIds, seed) }, credentials: apiKey };
      case 'GET /payments':
        return {
          path: {},
          credentials: apiKey,
          query: { paymentRequestId: this.pick(this.requestIds, seed), cursor: undefined, ...AMOUNTS },
        };
      case 'POST /payments/{paymentId}/capture':
      case 'POST /payments/{paymentId}/cancel':
        return { path: { paymentId: await this.payment(1) }, credentials: apiKey };
      case 'POST /payments/{paymentId}/refunds':
        return {
          path: { paymentId: await this.payment(0) },
          credentials: apiKey,
          body: (g) => ({ ...g, amount: g.amount === undefined ? undefined : Math.min(g.amount, AMOUNT) }),
        };
      case 'GET /events/{eventId}':
      case 'POST /events/{eventId}/resend':
        return { path: { eventId: this.pick(this.eventIds, seed) }, credentials: apiKey };
      case 'PATCH /settings':
        return {
          path: {},
          credentials: apiKey,
          body: (g) => ({
            ...g,
            businessName: g.businessName ?? 'Fuzz Shop',
            notifyUrl: g.notifyUrl == null ? g.notifyUrl : 'https://shop.example/hooks',
            checkoutOrigins: g.checkoutOrigins === undefined ? undefined : ['https://shop.example'],
          }),
        };
      default:
        return { path: {}, credentials: op.security.includes('ApiKey') ? apiKey : {} };
    }
  }
}

/**
 * Credentials a test-mode connection accepts beyond their schema: a Stripe secret key of test mode, the
 * Adyen environment "test" (the generated rest stays).
 */
function testModeCredentials(processor: unknown, generated: any): unknown {
  if (processor === 'stripe') return { ...generated, secretKey: 'sk_test_fuzz' };
  if (processor === 'adyen') return { ...generated, environment: 'test' };
  return generated;
}

/** A payer that passes every check (the fixtures' own payments). */
export const PAYER = {
  name: 'Fuzz Payer',
  email: 'payer@example.com',
  phoneNumber: '4915112345678',
  address: '1 Main St',
  city: 'Berlin',
  state: 'BE',
  postalCode: '10115',
  country: 'DE',
};
/** Only the members whose validity the schema cannot express (a real country); the rest stays generated. */
const PAYER_FIXED = { country: 'DE' };
/** The reporting lists' money filters: valid together only (a currency, amounts with its decimals). */
const AMOUNTS = { currency: 'EUR', amountFrom: 1, amountTo: 1000 };
/** URL members are validated as URLs beyond their schema (a length): generated text is not a URL. */
const URLS = { notifyUrl: null, successUrl: null, failureUrl: null, originDomain: null };

const STRIPE_WEBHOOK_SECRET = 'whsec_fuzz';
const ADYEN_MERCHANT = 'FuzzMerchantECOM';
const ADYEN_HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

/** A Stripe event the gateway acts on, about a PaymentIntent that names no payment of ours. */
function stripeEvent(n: string) {
  return {
    id: `evt_fuzz${n}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: `pi_fuzz${n}`,
        object: 'payment_intent',
        amount: 1050,
        currency: 'eur',
        status: 'succeeded',
        metadata: { payment_id: `pay_fuzz${n}` },
      },
    },
  };
}

/** An Adyen standard notification of one AUTHORISATION item, signed with the connection's HMAC key. */
function adyenNotification(n: string) {
  const item = {
    eventCode: 'AUTHORISATION' as const,
    pspReference: `FUZZ${n.padStart(12, '0')}`,
    merchantAccountCode: ADYEN_MERCHANT,
    merchantReference: `pay_fuzz${n}`,
    amount: { currency: 'EUR', value: 1050 },
    success: true,
  };
  return {
    live: 'false',
    notificationItems: [
      {
        NotificationRequestItem: {
          ...item,
          success: 'true',
          eventDate: new Date().toISOString(),
          reason: '',
          additionalData: { hmacSignature: notificationHmac(item, ADYEN_HMAC_KEY) },
        },
      },
    ],
  };
}
