import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

describe('health checks', () => {
  it('GET /healthz answers without credentials', async () => {
    const res = await gw.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers without credentials once storage is reachable', async () => {
    const res = await gw.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', storage: 'postgres' });
  });
});

describe('X-API-Version', () => {
  it('serves a request without the header as the current version, 2.1', async () => {
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-api-version')).toBe('2.1');
  });

  it.each(['2.0', '2.1', ' 2.1 '])('serves %j and answers as 2.1', async (version) => {
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey, headers: { 'x-api-version': version } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-api-version')).toBe('2.1');
  });

  it.each(['2.2', '3.0', '1.5', '1.0', 'garbage', '2', 'v2.1', '2.1.0', ''])(
    'refuses %j with 400 UNSUPPORTED_API_VERSION',
    async (version) => {
      const res = await gw.call('GET', '/ping', { apiKey: m.apiKey, headers: { 'x-api-version': version } });
      expectErrorGuide(res, 'UNSUPPORTED_API_VERSION');
      expect(res.body.details).toMatchObject({ supported: '2.0-2.1' });
    },
  );

  it('serves every route under /v2 as well', async () => {
    const ping = await gw.call('GET', '/v2/ping', { apiKey: m.apiKey });
    expect(ping.status).toBe(200);
    expect(ping.body.status).toBe('ok');
    expect((await gw.call('GET', '/v2/healthz')).status).toBe(200);
    const login = await gw.call('POST', '/v2/auth/login', { body: { email: m.email, password: m.password } });
    expect(login.status).toBe(200);
    expectErrorGuide(await gw.call('GET', '/v2/ping'), 'INVALID_API_KEY');
  });

  it('answers /v1/... with 410 pointing to /v2', async () => {
    const res = await gw.call('GET', '/v1/ping?x=1', { apiKey: m.apiKey });
    expectErrorGuide(res, 'API_VERSION_GONE');
    expect(res.status).toBe(410);
    expect(res.body.message).toContain('/v2/ping');
    expect(res.body.details).toEqual({ replacement: '/v2/ping' });
    expect((await gw.call('POST', '/v1/auth/login', { body: {} })).body.details).toEqual({
      replacement: '/v2/auth/login',
    });
  });
});

describe('security headers', () => {
  it('are on successes and errors alike, with Cache-Control: no-store on API responses', async () => {
    const responses = [
      await gw.call('GET', '/ping', { apiKey: m.apiKey }),
      await gw.call('GET', '/ping'),
      await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } }),
      await gw.call('GET', '/no/such/route'),
      await gw.call('GET', '/users/%ZZ/apikey'),
    ];
    for (const res of responses) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      // Plain HTTP in development: no HSTS (it is only meaningful over TLS).
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
  });
});
