import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import {
  createRequest,
  expectErrorGuide,
  mintToken,
  requestBody,
  type CreatedRequest,
} from '../payment-requests/fixtures.js';

const CHECKOUT_ORIGIN = 'https://checkout.example.com';

let m: TestMerchant;
let bound: CreatedRequest;
let sibling: CreatedRequest;
let token: string;

const gw = useGateway({ env: { CHECKOUT_URL: `${CHECKOUT_ORIGIN}/pay` } });
beforeAll(async () => {
  m = await gw.merchant();
  bound = await createRequest(gw, m.apiKey);
  sibling = await createRequest(gw, m.apiKey);
  token = await mintToken(gw, m.apiKey, bound.paymentRequestId);
});

interface Operation {
  method: string;
  path: string;
  checkout: boolean;
}

/** Every API-key operation the gateway serves, from its own OpenAPI document (so new modules' routes are covered too). */
async function apiKeyOperations(): Promise<Operation[]> {
  const doc = (await gw.call('GET', '/openapi.json')).body;
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, { security: Array<Record<string, unknown>> }>>(
    doc.paths,
  )) {
    for (const [method, op] of Object.entries(methods)) {
      const schemes = op.security.flatMap((s) => Object.keys(s));
      if (!schemes.includes('ApiKey')) continue;
      operations.push({ method: method.toUpperCase(), path, checkout: schemes.includes('CheckoutToken') });
    }
  }
  return operations;
}

/** The operation's URL with every path parameter set to `id`. */
const urlFor = (op: Operation, id: number) => op.path.replace(/\{[^}]+\}/g, String(id));

/** The payment request routes this module serves; the sweep must include at least these. */
const KNOWN_OPERATIONS = [
  'GET /ping',
  'POST /payment-requests',
  'GET /payment-requests',
  'GET /payment-requests/{id}',
  'GET /payment-requests/status/{id}',
  'POST /payment-requests/{id}/cancel',
  'POST /payment-requests/{paymentRequestId}/checkout-session',
];

const withToken = (method: string, path: string, extra: Record<string, string> = {}, value = token) =>
  gw.call(method, path, { headers: { 'x-checkout-token': value, ...extra }, body: method === 'POST' ? {} : undefined });

describe('token scope', () => {
  it('the sweep covers every known API-key route', async () => {
    const swept = (await apiKeyOperations()).map((op) => `${op.method} ${op.path}`);
    expect(swept).toEqual(expect.arrayContaining(KNOWN_OPERATIONS));
    // Only GET /payment-requests/{id} (and later the payment submission paths) accept a token.
    const checkout = (await apiKeyOperations()).filter((op) => op.checkout).map((op) => `${op.method} ${op.path}`);
    expect(checkout).toContain('GET /payment-requests/{id}');
    expect(checkout.filter((op) => !op.startsWith('POST /payments/'))).toEqual(['GET /payment-requests/{id}']);
  });

  it('answers 403 AUTH002 on every route outside the allow-list, even for the bound id', async () => {
    for (const op of await apiKeyOperations()) {
      if (op.checkout) continue;
      const res = await withToken(op.method, urlFor(op, bound.paymentRequestId));
      expectErrorGuide(res, 403, 'FORBIDDEN', 'AUTH002');
    }
  });

  it('the same holds when a valid API key is sent too: the token wins', async () => {
    for (const op of await apiKeyOperations()) {
      if (op.checkout) continue;
      const res = await withToken(op.method, urlFor(op, bound.paymentRequestId), { 'x-api-key': m.apiKey });
      expectErrorGuide(res, 403, 'FORBIDDEN', 'AUTH002');
    }
  });

  it('allow-listed routes accept the token for its own id only', async () => {
    for (const op of await apiKeyOperations()) {
      if (!op.checkout) continue;
      const own = await withToken(op.method, urlFor(op, bound.paymentRequestId));
      expect([401, 403], `${op.method} ${op.path}: ${own.text}`).not.toContain(own.status);
      expectErrorGuide(await withToken(op.method, urlFor(op, sibling.paymentRequestId)), 403, 'FORBIDDEN', 'AUTH002');
    }
  });

  it('nothing the refused calls asked for happened', async () => {
    const rows = await gw.db
      .selectFrom('payment_requests')
      .select(['id', 'status'])
      .where('merchant_id', '=', m.merchantId)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: bound.paymentRequestId, status: 'open' },
      { id: sibling.paymentRequestId, status: 'open' },
    ]);
    const sessions = await gw.db
      .selectFrom('checkout_sessions')
      .select('id')
      .where('merchant_id', '=', m.merchantId)
      .execute();
    expect(sessions).toHaveLength(1);
  });

  it('a token cannot mint a token (403), with or without a valid API key', async () => {
    const path = `/payment-requests/${bound.paymentRequestId}/checkout-session`;
    expectErrorGuide(await withToken('POST', path), 403, 'FORBIDDEN', 'AUTH002');
    expectErrorGuide(await withToken('POST', path, { 'x-api-key': m.apiKey }), 403, 'FORBIDDEN', 'AUTH002');
  });

  it("a token cannot read another merchant's request, even with that merchant's key", async () => {
    const other = await gw.merchant();
    const theirs = await createRequest(gw, other.apiKey);
    const res = await withToken('GET', `/payment-requests/${theirs.paymentRequestId}`, { 'x-api-key': other.apiKey });
    expectErrorGuide(res, 403, 'FORBIDDEN', 'AUTH002');
    expect(res.text).not.toContain(theirs.reference);
  });

  it('with both headers on the allow-listed route, the token decides what is read', async () => {
    const other = await gw.merchant();
    const res = await withToken('GET', `/payment-requests/${bound.paymentRequestId}`, { 'x-api-key': other.apiKey });
    expect(res.status).toBe(200);
    // The bound request, as the merchant reads it, less the merchant's notifyUrl.
    const { notifyUrl: _merchantOnly, ...record } = bound;
    expect(res.body).toEqual(record);
  });

  it('an expired, unknown or malformed token answers 401 AUTH001 on any route, even with a valid API key', async () => {
    const short = await createRequest(gw, m.apiKey);
    const expiring = await mintToken(gw, m.apiKey, short.paymentRequestId);
    gw.clock.advance(900);
    for (const value of [expiring, `cst_${'Z'.repeat(32)}`, 'garbage']) {
      for (const path of [`/payment-requests/${short.paymentRequestId}`, '/ping', '/payment-requests']) {
        expectErrorGuide(
          await withToken('GET', path, { 'x-api-key': m.apiKey }, value),
          401,
          'UNAUTHORIZED',
          'AUTH001',
        );
      }
    }
  });

  it('a token sent as X-API-Key is refused as a key (401), saying where it belongs, valid or not', async () => {
    const request = await createRequest(gw, m.apiKey);
    const fresh = await mintToken(gw, m.apiKey, request.paymentRequestId);
    const messages = new Set<string>();
    for (const value of [fresh, `cst_${'Z'.repeat(32)}`]) {
      for (const [method, path] of [
        ['GET', `/payment-requests/${request.paymentRequestId}`],
        ['POST', '/payment-requests'],
      ]) {
        const res = await gw.call(method, path, {
          apiKey: value,
          ...(method === 'POST' ? { body: requestBody() } : {}),
        });
        expectErrorGuide(res, 401, 'INVALID_API_KEY', 'INVALID_API_KEY');
        expect(res.body.message).toMatch(/checkout session token/);
        expect(res.body.message).toContain('X-Checkout-Token');
        messages.add(res.body.message);
      }
    }
    // The same words for a live token and a made-up one: the hint tells nothing about the token.
    expect(messages.size).toBe(1);
    const key = await gw.call('GET', '/ping', { apiKey: 'svc_test_sk_unknown' });
    expectErrorGuide(key, 401, 'INVALID_API_KEY', 'INVALID_API_KEY');
    expect(key.body.message).not.toMatch(/checkout/i);
  });

  it('a token is no control-panel credential', async () => {
    const res = await gw.call('PUT', `/users/${m.userId}/apikey`, { headers: { 'x-checkout-token': token } });
    expectErrorGuide(res, 401, 'UNAUTHORIZED', 'AUTH001');
  });
});

describe('CORS', () => {
  const fresh = async () => {
    const request = await createRequest(gw, m.apiKey);
    return { id: request.paymentRequestId, token: await mintToken(gw, m.apiKey, request.paymentRequestId) };
  };

  it('the record points at the configured checkout front end', () => {
    expect(bound.checkoutUrl).toBe(`${CHECKOUT_ORIGIN}/pay/main?requestId=${bound.paymentRequestId}`);
  });

  it('a token-scoped route answers the checkout origin, errors included', async () => {
    const { id, token: t } = await fresh();
    const ok = await withToken('GET', `/payment-requests/${id}`, { origin: CHECKOUT_ORIGIN }, t);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(CHECKOUT_ORIGIN);
    expect(ok.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);

    const denied = await withToken(
      'GET',
      `/payment-requests/${id}`,
      { origin: CHECKOUT_ORIGIN },
      `cst_${'Q'.repeat(32)}`,
    );
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(CHECKOUT_ORIGIN);
  });

  it('any other origin, or none, gets no CORS headers', async () => {
    const { id, token: t } = await fresh();
    for (const origin of [
      'https://evil.example',
      'https://checkout.example.com:8443',
      'http://checkout.example.com',
      'null',
    ]) {
      const res = await withToken('GET', `/payment-requests/${id}`, { origin }, t);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect(
      (await withToken('GET', `/payment-requests/${id}`, {}, t)).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('answers the preflight of a token-scoped route with 204 and the allowed headers', async () => {
    for (const prefix of ['', '/v2']) {
      const res = await gw.call('OPTIONS', `${prefix}/payment-requests/${bound.paymentRequestId}`, {
        headers: {
          origin: CHECKOUT_ORIGIN,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-checkout-token, x-api-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(CHECKOUT_ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET');
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(
        expect.arrayContaining(['x-checkout-token', 'content-type', 'x-idempotency-key', 'x-api-version']),
      );
      expect(allowed).not.toContain('x-api-key');
    }
  });

  it('a preflight from another origin gets no CORS headers', async () => {
    const res = await gw.call('OPTIONS', `/payment-requests/${bound.paymentRequestId}`, {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('API-key routes never send CORS headers, not even to the checkout origin', async () => {
    for (const op of await apiKeyOperations()) {
      if (op.checkout) continue;
      const path = urlFor(op, sibling.paymentRequestId);
      const body = op.method === 'POST' ? (op.path === '/payment-requests' ? requestBody() : {}) : undefined;
      const res = await gw.call(op.method, path, { apiKey: m.apiKey, headers: { origin: CHECKOUT_ORIGIN }, body });
      expect(res.status, `${op.method} ${path}: ${res.text}`).toBeLessThan(500);
      expect(res.headers.get('access-control-allow-origin'), `${op.method} ${path}`).toBeNull();

      const preflight = await gw.call('OPTIONS', path, {
        headers: { origin: CHECKOUT_ORIGIN, 'access-control-request-method': op.method },
      });
      expect(preflight.headers.get('access-control-allow-origin'), `OPTIONS ${path}`).toBeNull();
    }
  });
});
