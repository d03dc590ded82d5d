import { describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway } from '../helpers/gateway.js';

const gw = useGateway();

describe('GET /ping', () => {
  it('answers an API key with status, message and timestamp', async () => {
    const m = await gw.merchant();
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'status', 'timestamp']);
    expect(res.body).toMatchObject({ status: 'ok', message: expect.stringContaining('test mode') });
    expect(res.body.timestamp).toBe(gw.clock.now().toISOString());
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  it('answers a live key in live mode', async () => {
    const m = await gw.merchant({ mode: 'live' });
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.message).toContain('live mode');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['malformed', 'hello'],
    ['of the wrong shape', 'svc_test_pk_0123456789012345678901234567890123456789'],
    ['unknown', `svc_test_sk_${'A'.repeat(40)}`],
    ['absurdly long', `svc_test_sk_${'A'.repeat(8000)}`],
  ])('refuses a %s key with 401 INVALID_API_KEY', async (_label, key) => {
    const res = await gw.call('GET', '/ping', key === undefined ? {} : { headers: { 'x-api-key': key } });
    expectErrorGuide(res, 'INVALID_API_KEY');
  });

  it('refuses a key that was replaced', async () => {
    const m = await gw.merchant();
    const login = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
    await gw.call('PUT', `/users/${m.userId}/apikey`, {
      headers: { authorization: `Bearer ${login.body.accessToken}` },
    });
    expectErrorGuide(await gw.call('GET', '/ping', { apiKey: m.apiKey }), 'INVALID_API_KEY');
  });

  it('refuses a suspended merchant with 403 INSUFFICIENT_PERMISSIONS and still serves a restricted one', async () => {
    const suspended = await gw.merchant({ status: 'suspended' });
    expectErrorGuide(await gw.call('GET', '/ping', { apiKey: suspended.apiKey }), 'INSUFFICIENT_PERMISSIONS');
    const restricted = await gw.merchant({ status: 'restricted' });
    expect((await gw.call('GET', '/ping', { apiKey: restricted.apiKey })).status).toBe(200);
  });

  it('refuses Authorization: Bearer, explaining that it was removed on 2024-06-01 in favour of X-API-Key', async () => {
    const m = await gw.merchant();
    const res = await gw.call('GET', '/ping', { headers: { authorization: `Bearer ${m.apiKey}` } });
    expectErrorGuide(res, 'INVALID_API_KEY');
    expect(res.body.message).toContain('2024-06-01');
    expect(res.body.message).toContain('X-API-Key');
  });

  it('lets a checkout token win over a valid API key: garbage token, 401 UNAUTHORIZED AUTH001', async () => {
    const m = await gw.merchant();
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey, headers: { 'x-checkout-token': 'garbage' } });
    expectErrorGuide(res, 'UNAUTHORIZED');
    expect(res.body.code).toBe('AUTH001');
  });
});
