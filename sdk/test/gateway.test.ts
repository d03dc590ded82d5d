import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../../test/helpers/gateway.js';
import { CARDS, h2hCard } from '../../test/payments/fixtures.js';
import {
  ConnectionError,
  Gateway,
  GatewayError,
  InvalidRequestError,
  NotFoundError,
  PaymentDeclinedError,
  RateLimitError,
} from '../src/index.js';
import { forward, startLocalServer, type LocalServer } from './helpers.js';

/**
 * The SDK against the real gateway (started on a fresh database by the suite's helpers), and against
 * small local servers that stand between them where the test needs a network that fails.
 */
const gw = useGateway();
let m: TestMerchant;
let gateway: Gateway;
const servers: LocalServer[] = [];
const serve = async (...args: Parameters<typeof startLocalServer>) => {
  const server = await startLocalServer(...args);
  servers.push(server);
  return server;
};
const FAST_RETRIES = { baseDelayMs: 20, maxDelayMs: 100 };

beforeAll(async () => {
  m = await gw.merchant();
  gateway = new Gateway({ apiKey: m.apiKey, baseUrl: gw.url, retry: FAST_RETRIES });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const newRequest = (amount = 10.5) =>
  gateway.paymentRequests.create({ amount, currency: 'EUR', reference: `sdk-${Date.now()}-${Math.random()}` });

describe('payment requests, payments, refunds, customers, checkout sessions', () => {
  it('creates a payment request, reads it back and lists it', async () => {
    const created = await newRequest(12.34);
    expect(created).toMatchObject({ amount: 12.34, currency: 'EUR', status: 'open', livemode: false });
    expect(await gateway.paymentRequests.get(created.paymentRequestId)).toEqual(created);
    const listed = await gateway.paymentRequests.list({ limit: 100 });
    expect(listed.data.map((r) => r.paymentRequestId)).toContain(created.paymentRequestId);
    expect((await gateway.paymentRequests.status(created.paymentRequestId)).paymentRequestId).toBe(
      created.paymentRequestId,
    );
  });

  it('pays host to host, approved; reads, lists and refunds the payment', async () => {
    const request = await newRequest();
    const payment = await gateway.payments.h2h(request.paymentRequestId, h2hCard(CARDS.visa));
    expect(payment).toMatchObject({
      status: 'succeeded',
      amount: 10.5,
      currency: 'EUR',
      paymentRequestId: request.paymentRequestId,
    });
    // The reusable card token is shown once, in the submission's answer.
    expect(payment.cardToken).toEqual(expect.any(String));
    expect(await gateway.payments.get(payment.paymentId)).toEqual({ ...payment, cardToken: null });
    const listed = await gateway.payments.list({ paymentRequestId: request.paymentRequestId });
    expect(listed.data.map((p) => p.paymentId)).toEqual([payment.paymentId]);
    const refund = await gateway.refunds.create(payment.paymentId, { amount: 4, reason: 'one item back' });
    expect(refund).toMatchObject({ paymentId: payment.paymentId, amount: 4, currency: 'EUR', status: 'succeeded' });
    expect((await gateway.payments.refund(payment.paymentId)).amount).toBe(6.5);
  });

  it('authorizes, then captures or voids', async () => {
    const first = await newRequest();
    const authorized = await gateway.payments.h2h(first.paymentRequestId, {
      ...h2hCard(CARDS.visa),
      captureDelayHours: 2,
    });
    expect(authorized.status).toBe('authorized');
    expect((await gateway.payments.capture(authorized.paymentId)).status).toBe('succeeded');
    const second = await newRequest();
    const held = await gateway.payments.h2h(second.paymentRequestId, { ...h2hCard(CARDS.visa), captureDelayHours: 2 });
    expect((await gateway.payments.void(held.paymentId)).status).toBe('canceled');
  });

  it('rejects a declined h2h payment with PaymentDeclinedError, from the problem record', async () => {
    const request = await newRequest();
    const error = await gateway.payments
      .h2h(request.paymentRequestId, h2hCard(CARDS.insufficientFunds))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentDeclinedError);
    const declined = error as PaymentDeclinedError;
    expect(declined).toMatchObject({ status: 402, error: 'CARD_DECLINED', shape: 'problem' });
    expect(declined.code).toMatch(/^[A-Z]+\d+$/);
    expect(declined.requestId).toMatch(/^req_/);
    expect(declined.paymentId).toEqual(expect.any(Number));
    expect((await gateway.payments.get(declined.paymentId!)).status).toBe('failed');
  });

  it('mints a checkout session for a payment request', async () => {
    const request = await newRequest();
    const session = await gateway.checkoutSessions.create(request.paymentRequestId);
    expect(session).toMatchObject({
      paymentRequestId: request.paymentRequestId,
      ttlSeconds: 900,
      token: expect.any(String),
    });
  });

  it('creates, reads, lists, updates and sums up customers', async () => {
    const customer = await gateway.customers.create({ name: 'Asha Rao', email: `asha-${Date.now()}@example.com` });
    expect(await gateway.customers.get(customer.id)).toEqual(customer);
    expect((await gateway.customers.list({ email: customer.email })).data.map((c) => c.id)).toEqual([customer.id]);
    expect((await gateway.customers.update(customer.id, { phone: '919876543210' })).phone).toBe('919876543210');
    expect((await gateway.customers.summary(customer.id)).customer.id).toBe(customer.id);
  });
});

describe('typed errors', () => {
  it('a bad payment request is an InvalidRequestError with the error-guide fields', async () => {
    const error = await gateway.paymentRequests
      .create({ amount: -1, currency: 'EUR', reference: 'bad' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, shape: 'error-guide', requestId: expect.stringMatching(/^req_/) });
    expect((error as GatewayError).code).not.toBe('');
    expect((error as GatewayError).message).not.toBe('');
  });

  it('a missing field names itself in details; an unknown customer is a NotFoundError (problem record)', async () => {
    const missing = (await gateway.customers
      .create({ name: 'No mail' } as never)
      .catch((e: unknown) => e)) as GatewayError;
    expect(missing).toBeInstanceOf(InvalidRequestError);
    expect(missing).toMatchObject({
      error: 'VALIDATION_ERROR',
      shape: 'problem',
      details: { missingFields: ['email'] },
    });
    const unknown = await gateway.customers.get(999_999_999).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ status: 404, error: 'NOT_FOUND' });
  });

  it('a wrong API key is an AuthenticationError', async () => {
    const stranger = new Gateway({ apiKey: 'svc_test_sk_nope', baseUrl: gw.url });
    await expect(stranger.paymentRequests.list()).rejects.toMatchObject({ name: 'AuthenticationError', status: 401 });
  });

  it('no gateway at all is a ConnectionError once the retries are spent', async () => {
    const nowhere = new Gateway({
      apiKey: m.apiKey,
      baseUrl: 'http://127.0.0.1:9',
      retry: { ...FAST_RETRIES, maxRetries: 1 },
    });
    const error = await nowhere.paymentRequests.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ status: 0, error: 'CONNECTION_FAILED' });
  });
});

describe('idempotency and retries', () => {
  it('gives every POST a key of its own; a key given twice answers the first outcome', async () => {
    const proxy = await serve(async (request, answer) => {
      const forwarded = await forward(gw.url, request);
      answer(forwarded.status, forwarded.headers, forwarded.body);
    });
    const viaProxy = new Gateway({ apiKey: m.apiKey, baseUrl: proxy.url, retry: FAST_RETRIES });
    await newRequestVia(viaProxy);
    await newRequestVia(viaProxy);
    const [first, second] = proxy.seen.map((s) => s.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);

    const body = { amount: 3, currency: 'EUR', reference: `same-key-${Date.now()}` };
    const key = `order-fixed-${Date.now()}`;
    const a = await gateway.paymentRequests.create(body, { idempotencyKey: key });
    const b = await gateway.paymentRequests.create(body, { idempotencyKey: key });
    expect(b.paymentRequestId).toBe(a.paymentRequestId);
  });

  it('re-sends the same key after a dropped answer: the payment is charged once', async () => {
    const request = await newRequest();
    let dropped = false;
    const replays: string[] = [];
    const proxy = await serve(async (seen, answer, drop) => {
      const forwarded = await forward(gw.url, seen);
      if (seen.path.startsWith('/payments/h2h/') && !dropped) {
        dropped = true;
        return drop(); // the gateway charged the card; its answer never reaches the client
      }
      if (forwarded.headers['idempotent-replayed']) replays.push(forwarded.headers['idempotent-replayed']);
      answer(forwarded.status, forwarded.headers, forwarded.body);
    });
    const viaProxy = new Gateway({ apiKey: m.apiKey, baseUrl: proxy.url, retry: FAST_RETRIES });
    const payment = await viaProxy.payments.h2h(request.paymentRequestId, h2hCard(CARDS.visa));
    expect(payment.status).toBe('succeeded');
    const attempts = proxy.seen.filter((s) => s.path.startsWith('/payments/h2h/'));
    expect(attempts).toHaveLength(2);
    expect(attempts[1].headers['idempotency-key']).toBe(attempts[0].headers['idempotency-key']);
    expect(attempts[1].body).toBe(attempts[0].body);
    expect(replays).toEqual(['true']);
    const payments = await gateway.payments.list({ paymentRequestId: request.paymentRequestId });
    expect(payments.data.map((p) => p.paymentId)).toEqual([payment.paymentId]);
    expect((await gateway.paymentRequests.get(request.paymentRequestId)).amountPaid).toBe(10.5);
  });

  it('re-sends the same key after a 5xx: the payment request is created once', async () => {
    const reference = `after-5xx-${Date.now()}`;
    let failed = false;
    const proxy = await serve(async (seen, answer) => {
      const forwarded = await forward(gw.url, seen);
      if (seen.method === 'POST' && !failed) {
        failed = true;
        return answer(
          503,
          { 'content-type': 'application/json' },
          '{"error":"SERVICE_UNAVAILABLE","message":"busy","code":"SYS003"}',
        );
      }
      answer(forwarded.status, forwarded.headers, forwarded.body);
    });
    const viaProxy = new Gateway({ apiKey: m.apiKey, baseUrl: proxy.url, retry: FAST_RETRIES });
    const created = await viaProxy.paymentRequests.create({ amount: 8, currency: 'EUR', reference });
    const posts = proxy.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1].headers['idempotency-key']).toBe(posts[0].headers['idempotency-key']);
    const same = (await gateway.paymentRequests.list({ limit: 100 })).data.filter((r) => r.reference === reference);
    expect(same.map((r) => r.paymentRequestId)).toEqual([created.paymentRequestId]);
  });

  it('waits as long as Retry-After says, then retries with the same key', async () => {
    const server = await serve((seen, answer) => {
      if (server.seen.length === 1)
        return answer(
          429,
          { 'content-type': 'application/json', 'retry-after': '1' },
          JSON.stringify({ error: 'RATE_LIMITED', message: 'slow down', code: 'RATE001', requestId: 'req_1' }),
        );
      answer(200, { 'content-type': 'application/json' }, JSON.stringify({ paymentRequestId: 1 }));
    });
    const client = new Gateway({ apiKey: m.apiKey, baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    const started = Date.now();
    await client.paymentRequests.create({ amount: 1, currency: 'EUR', reference: 'x' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1].headers['idempotency-key']).toBe(server.seen[0].headers['idempotency-key']);
  });

  it('does not wait for a Retry-After longer than it allows: a RateLimitError says how long', async () => {
    const server = await serve((_seen, answer) =>
      answer(
        429,
        { 'content-type': 'application/json', 'retry-after': '120' },
        JSON.stringify({ error: 'RATE_LIMITED', message: 'later', code: 'RATE001' }),
      ),
    );
    const client = new Gateway({ apiKey: m.apiKey, baseUrl: server.url });
    const error = await client.payments.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000, error: 'RATE_LIMITED' });
    expect(server.seen).toHaveLength(1);
  });
});

describe('server side only', () => {
  it('refuses to be constructed where a browser page runs', () => {
    const global = globalThis as Record<string, unknown>;
    for (const name of ['window', 'document']) {
      global[name] = {};
      try {
        expect(() => new Gateway({ apiKey: m.apiKey, baseUrl: gw.url }), name).toThrow(/servers only/);
      } finally {
        delete global[name];
      }
    }
    expect(() => new Gateway({ apiKey: m.apiKey, baseUrl: gw.url })).not.toThrow();
  });
});

async function newRequestVia(client: Gateway) {
  return client.paymentRequests.create({ amount: 2, currency: 'EUR', reference: `via-${Date.now()}-${Math.random()}` });
}
