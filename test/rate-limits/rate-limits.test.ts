import { describe, expect, it } from 'vitest';
import { PASSWORD, useGateway, type CallResult } from '../helpers/gateway.js';

// In-memory counters (no REDIS_URL); shared-counters.test.ts covers Redis.
const MAX = 5;
const WINDOW = 60;
const POLICY = `"default";q=${MAX};w=${WINDOW}`;

const gw = useGateway({ env: { RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW) } });

/** Moves the clock to the start of the next window, so each test starts with full quotas. */
function startOfNextWindow(): void {
  const seconds = gw.clock.now().getTime() / 1000;
  gw.clock.advance(WINDOW - (seconds % WINDOW));
}

function expectRateLimited(res: CallResult, retryAfter: number): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    error: 'RATE_LIMIT_EXCEEDED',
    code: 'RATE001',
    message: `Rate limit of ${MAX} requests per ${WINDOW} seconds exceeded; retry after ${retryAfter} seconds`,
    details: { limit: MAX, window: WINDOW, retryAfter },
    timestamp: expect.any(String),
    requestId: expect.stringMatching(/^req_/),
  });
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
  expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
}

describe('per API key', () => {
  it('serves the quota with RateLimit headers, then answers 429 with Retry-After', async () => {
    startOfNextWindow();
    const m = await gw.merchant();
    for (let i = 1; i <= MAX; i++) {
      const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    gw.clock.advance(18);
    expectRateLimited(await gw.call('GET', '/ping', { apiKey: m.apiKey }), 42);
  });

  it("counts each key on its own: the same merchant's other key and other merchants are still served", async () => {
    startOfNextWindow();
    const m = await gw.merchant({ withLiveKey: true });
    const other = await gw.merchant();
    for (let i = 0; i < MAX; i++) await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(429);

    const live = await gw.call('GET', '/ping', { apiKey: m.liveKey });
    expect(live.status).toBe(200);
    expect(live.headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
    const otherMerchant = await gw.call('GET', '/ping', { apiKey: other.apiKey });
    expect(otherMerchant.status).toBe(200);
    expect(otherMerchant.headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
  });

  it('gives the full quota back when the window resets', async () => {
    startOfNextWindow();
    const m = await gw.merchant();
    for (let i = 0; i < MAX; i++) await gw.call('GET', '/ping', { apiKey: m.apiKey });
    gw.clock.advance(WINDOW - 1);
    expectRateLimited(await gw.call('GET', '/ping', { apiKey: m.apiKey }), 1);

    gw.clock.advance(1);
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
  });
});

describe('per checkout session', () => {
  it('gives each checkout session token its own quota', async () => {
    startOfNextWindow();
    const m = await gw.merchant();
    const created = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: { amount: 5, currency: 'EUR', reference: 'rl-checkout' },
    });
    const id = created.body.paymentRequestId;
    const mint = async () =>
      (await gw.call('POST', `/payment-requests/${id}/checkout-session`, { apiKey: m.apiKey, body: {} })).body
        .token as string;
    const [first, second] = [await mint(), await mint()];
    for (let i = 1; i <= MAX; i++) {
      const res = await gw.call('GET', `/payment-requests/${id}`, { headers: { 'X-Checkout-Token': first } });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    expectRateLimited(
      await gw.call('GET', `/payment-requests/${id}`, { headers: { 'X-Checkout-Token': first } }),
      WINDOW,
    );
    expect((await gw.call('GET', `/payment-requests/${id}`, { headers: { 'X-Checkout-Token': second } })).status).toBe(
      200,
    );
  });
});

describe('per control-panel user', () => {
  it("limits a signed-in user's calls to their own quota", async () => {
    startOfNextWindow();
    const m = await gw.merchant();
    const { accessToken } = (await gw.call('POST', '/auth/login', { body: { email: m.email, password: PASSWORD } }))
      .body;
    const rotate = () =>
      gw.call('PUT', `/users/${m.userId}/apikey`, { headers: { authorization: `Bearer ${accessToken}` } });
    for (let i = 1; i <= MAX; i++) {
      const res = await rotate();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    expectRateLimited(await rotate(), WINDOW);
  });
});

describe('per client IP', () => {
  it('limits unauthenticated routes together per address, in the error-guide shape even under /payments', async () => {
    startOfNextWindow();
    for (let i = 1; i <= MAX; i++) {
      const res = await gw.call('GET', i % 2 ? '/openapi.json' : '/no-such-route');
      expect(res.status).toBe(i % 2 ? 200 : 404);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    expectRateLimited(await gw.call('GET', '/openapi.json'), WINDOW);
    expectRateLimited(await gw.call('POST', '/payments/none/of/these', { body: { amount: 1 } }), WINDOW);
  });

  it('counts calls with failed credentials against the address, so guessing keys is limited too', async () => {
    startOfNextWindow();
    const guess = () => `svc_test_sk_${Math.random().toString(36).slice(2).padEnd(40, 'x')}`;
    for (let i = 1; i <= MAX; i++) {
      const res = await gw.call('GET', '/ping', { apiKey: guess() });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    expectRateLimited(await gw.call('GET', '/ping', { apiKey: guess() }), WINDOW);
    expectRateLimited(await gw.call('GET', '/ping', { headers: { 'X-Checkout-Token': 'cst_guess' } }), WINDOW);
    // A valid key keeps its own quota.
    const m = await gw.merchant();
    expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);
  });

  it('never limits the load-balancer probes, and API keys from the same address keep their own quota', async () => {
    startOfNextWindow();
    for (let i = 0; i <= MAX; i++) await gw.call('GET', '/openapi.json');
    expect((await gw.call('GET', '/openapi.json')).status).toBe(429);

    for (const probe of ['/healthz', '/readyz', '/healthz']) {
      const res = await gw.call('GET', probe);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    const m = await gw.merchant();
    expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);
  });
});

describe('sign-in', () => {
  it('limits POST /auth/login per e-mail (any case) and IP; another e-mail is still served', async () => {
    startOfNextWindow();
    const target = await gw.merchant();
    const other = await gw.merchant();
    const spellings = [target.email, target.email.toUpperCase(), ` ${target.email} `];
    for (let i = 1; i <= MAX; i++) {
      const res = await gw.call('POST', '/auth/login', {
        body: { email: spellings[i % 3], password: 'wrong password' },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i};t=${WINDOW}`);
    }
    // Even the right password waits: the limit is on attempts, not failures.
    expectRateLimited(
      await gw.call('POST', '/auth/login', { body: { email: target.email, password: PASSWORD } }),
      WINDOW,
    );

    const res = await gw.call('POST', '/auth/login', { body: { email: other.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
    // Sign-in attempts do not spend the address's quota for other unauthenticated routes.
    expect((await gw.call('GET', '/openapi.json')).headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
  });

  it('serves the same e-mail again in the next window', async () => {
    startOfNextWindow();
    const m = await gw.merchant();
    for (let i = 0; i < MAX; i++)
      await gw.call('POST', '/auth/login', { body: { email: m.email, password: 'wrong password' } });
    expect((await gw.call('POST', '/auth/login', { body: { email: m.email, password: PASSWORD } })).status).toBe(429);
    startOfNextWindow();
    expect((await gw.call('POST', '/auth/login', { body: { email: m.email, password: PASSWORD } })).status).toBe(200);
  });
});
