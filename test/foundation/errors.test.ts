import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide, expectNoLeak, expectProblem } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';

const gw = useGateway();
let m: TestMerchant;
let bearer: Record<string, string>;
beforeAll(async () => {
  m = await gw.merchant();
  const login = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
  bearer = { authorization: `Bearer ${login.body.accessToken}` };
});

describe('request ids', () => {
  it('puts a fresh X-Request-Id on every response, the same as requestId in an error body', async () => {
    const ok = await gw.call('GET', '/healthz');
    const failed = await gw.call('GET', '/ping');
    const notFound = await gw.call('GET', '/nowhere');
    const ids = [ok, failed, notFound].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(new Set(ids).size).toBe(3);
    expect(failed.body.requestId).toBe(ids[1]);
    expect(notFound.body.requestId).toBe(ids[2]);
  });

  it('never adopts a request id sent by the client', async () => {
    const res = await gw.call('GET', '/ping', { headers: { 'x-request-id': 'attacker-chosen' } });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('unknown routes and methods', () => {
  it('answers an unknown route with 404 in the error-guide shape', async () => {
    const res = await gw.call('GET', '/no/such/route');
    expectErrorGuide(res, 'NOT_FOUND');
    expect(res.body.message).toContain('/no/such/route');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const del = await gw.call('DELETE', '/ping');
    expectErrorGuide(del, 'METHOD_NOT_ALLOWED');
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    const get = await gw.call('GET', `/users/${m.userId}/apikey`);
    expectErrorGuide(get, 'METHOD_NOT_ALLOWED');
    expect(get.headers.get('allow')).toBe('PUT');
    const v2 = await gw.call('GET', '/v2/auth/login');
    expect(v2.status).toBe(405);
    expect(v2.headers.get('allow')).toBe('POST');
  });

  it('does not take a trailing slash for a known path', async () => {
    expectErrorGuide(await gw.call('GET', '/ping/'), 'NOT_FOUND');
  });

  it.each(['/payments/no/such/route', '/v2/payments/x/y/z/w', '/customers/1/no/such/thing'])(
    'answers an unknown route under %s with a problem record',
    async (path) => {
      const res = await gw.call('POST', `${path}?q=1`, { body: {} });
      expectProblem(res, 'NOT_FOUND');
      expect(res.body).toMatchObject({ status: 404, title: 'Not found', instance: path });
    },
  );
});

describe('absurd input never leaks a stack trace or SQL', () => {
  it('huge, negative and fractional numbers in path parameters', async () => {
    expectErrorGuide(await gw.call('PUT', `/users/${m.userId + 1000}/apikey`, { headers: bearer }), 'FORBIDDEN');
    for (const id of ['99999999999999999999999999', '9223372036854775808', '1e308', '-1', '0.5', 'NaN', 'one']) {
      const res = await gw.call('PUT', `/users/${id}/apikey`, { headers: bearer });
      expectErrorGuide(res, 'INVALID_FORMAT');
      expect(res.body.details.field).toBe('userId');
    }
    // Ajv coerces "Infinity" to a number and skips range checks for it: refused as someone else's id.
    expectErrorGuide(await gw.call('PUT', '/users/Infinity/apikey', { headers: bearer }), 'FORBIDDEN');
    const tooLong = await gw.call('PUT', `/users/${'9'.repeat(500)}/apikey`, { headers: bearer });
    expectErrorGuide(tooLong, 'INVALID_FORMAT');
  });

  it('broken percent-encoding in the URL', async () => {
    expectErrorGuide(await gw.call('GET', '/users/%ZZ/apikey'), 'INVALID_FORMAT');
    expectProblem(await gw.call('GET', '/payments/%E0%A4%A'), 'INVALID_FORMAT');
  });

  it('NUL characters in body strings and member names, and in the URL', async () => {
    const inValue = await gw.call('POST', '/auth/login', { body: { email: 'a\u0000@example.com', password: 'x' } });
    expectErrorGuide(inValue, 'INVALID_FORMAT');
    expect(inValue.body.details.field).toBe('email');
    const inName = await gw.call('POST', '/auth/login', {
      body: { email: 'a@example.com', password: 'x', 'bad\u0000name': 1 },
    });
    expectErrorGuide(inName, 'INVALID_FORMAT');
    expectErrorGuide(await gw.call('PUT', `/users/%00/apikey`, { headers: bearer }), 'INVALID_FORMAT');
    expectErrorGuide(await gw.call('PUT', `/users/${m.userId}/apikey?mode=%00`, { headers: bearer }), 'INVALID_FORMAT');
  });

  it('deeply nested JSON', async () => {
    // Bodies nested beyond the parser's limit are refused before anything else reads them.
    const arrays = await gw.call('POST', '/auth/login', { body: `${'['.repeat(30_000)}${']'.repeat(30_000)}` });
    expectErrorGuide(arrays, 'JSON_TOO_COMPLEX');
    const deepField = await gw.call('POST', '/auth/login', {
      body: `{"email":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)},"password":"x"}`,
    });
    expectErrorGuide(deepField, 'JSON_TOO_COMPLEX');
    // Within the limit, nested values are validated and ignored like any others.
    const nestedField = await gw.call('POST', '/auth/login', {
      body: `{"email":${'{"a":'.repeat(60)}1${'}'.repeat(60)},"password":"x"}`,
    });
    expectErrorGuide(nestedField, 'INVALID_FORMAT');
    expect(nestedField.body.details.field).toBe('email');
    const nestedUnknown = await gw.call('POST', '/auth/login', {
      body: `{"email":"a@example.com","password":"x","extra":${'{"constructor":'.repeat(60)}1${'}'.repeat(60)}}`,
    });
    expectErrorGuide(nestedUnknown, 'INVALID_CREDENTIALS');
    expect(nestedUnknown.headers.get('x-ignored-fields')).toBe('extra');
  });

  it('prototype pollution attempts, numbers beyond double range, lone surrogates and oversized strings', async () => {
    expectErrorGuide(
      await gw.call('POST', '/auth/login', { body: '{"email":"a@b.co","password":"p","__proto__":{"admin":true}}' }),
      'INVALID_JSON',
    );
    const huge = await gw.call('POST', '/auth/login', { body: '{"email":1e400,"password":"x"}' });
    expectErrorGuide(huge, 'INVALID_FORMAT');
    expect(
      (await gw.call('POST', '/auth/login', { body: '{"email":"\\ud800@example.com","password":"x"}' })).status,
    ).toBe(401);
    const long = await gw.call('POST', '/auth/login', {
      body: { email: `${'a'.repeat(60_000)}@example.com`, password: 'x' },
    });
    expectErrorGuide(long, 'INVALID_FORMAT');
    expect(long.body.details.field).toBe('email');
  });

  it('odd headers', async () => {
    const res = await gw.call('GET', '/ping', {
      headers: { 'x-api-key': `svc_test_sk_${'é'.repeat(50)}`, 'x-api-version': '9'.repeat(200) },
    });
    expect(res.status).toBe(400);
    expectNoLeak(res);
    expectErrorGuide(await gw.call('GET', '/ping', { headers: { 'x-api-key': "' or 1=1 --" } }), 'INVALID_API_KEY');
    expectErrorGuide(
      await gw.call('GET', '/ping', { headers: { 'x-checkout-token': 'x'.repeat(5000) } }),
      'UNAUTHORIZED',
    );
  });
});
