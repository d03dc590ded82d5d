import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';

// Production behind a TLS-terminating proxy on 127.0.0.1. (Without TRUSTED_PROXIES the same
// X-Forwarded-Proto header is not believed: see startup.test.ts, which runs production that way.)
let m: TestMerchant;
const gw = useGateway({
  env: {
    NODE_ENV: 'production',
    ...PRODUCTION_SECRETS,
    TRUSTED_PROXIES: '127.0.0.1',
    PUBLIC_URL: 'https://pay.example.com',
  },
});
beforeAll(async () => {
  m = await gw.merchant();
});

const viaProxy = { 'x-forwarded-proto': 'https' };

describe('production over plain HTTP', () => {
  it('refuses API calls with 403 HTTPS_REQUIRED naming the HTTPS address', async () => {
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expectErrorGuide(res, 'HTTPS_REQUIRED');
    expect(res.body.message).toContain('https://pay.example.com');
    expect(res.headers.get('strict-transport-security')).toBeNull();
    expectErrorGuide(
      await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } }),
      'HTTPS_REQUIRED',
    );
    expectErrorGuide(await gw.call('GET', '/openapi.json'), 'HTTPS_REQUIRED');
    expectErrorGuide(
      await gw.call('GET', '/ping', { apiKey: m.apiKey, headers: { 'x-forwarded-proto': 'http' } }),
      'HTTPS_REQUIRED',
    );
  });

  it('still answers the health checks (load balancers probe them over HTTP)', async () => {
    expect((await gw.call('GET', '/healthz')).status).toBe(200);
    expect((await gw.call('GET', '/readyz')).status).toBe(200);
    expect((await gw.call('GET', '/v2/healthz')).status).toBe(200);
  });

  it('serves a request a trusted proxy forwarded from HTTPS, with HSTS', async () => {
    const ping = await gw.call('GET', '/ping', { apiKey: m.apiKey, headers: viaProxy });
    expect(ping.status).toBe(200);
    expect(ping.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    const login = await gw.call('POST', '/auth/login', {
      body: { email: m.email, password: m.password },
      headers: viaProxy,
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('cache-control')).toBe('no-store');
  });
});
