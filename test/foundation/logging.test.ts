import { describe, expect, it } from 'vitest';
import { requestLogLines, useGateway } from '../helpers/gateway.js';

const gw = useGateway();
const requestLines = (requestId: string | null) => requestLogLines(gw, requestId);

describe('request logs', () => {
  it('write one line per request with reqId, merchantId, route, status and durationMs', async () => {
    const m = await gw.merchant();
    const res = await gw.call('GET', '/v2/ping', { apiKey: m.apiKey });
    const [line, ...more] = requestLines(res.headers.get('x-request-id'));
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/ping',
      url: '/v2/ping',
      status: 200,
      merchantId: m.merchantId,
    });
    expect(line.durationMs).toEqual(expect.any(Number));

    const refused = await gw.call('GET', '/ping');
    expect(requestLines(refused.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ status: 401, merchantId: null, route: '/ping' }),
    ]);
    const unknown = await gw.call('GET', '/nowhere');
    expect(requestLines(unknown.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ status: 404, route: null, url: '/nowhere' }),
    ]);
    const badUrl = await gw.call('GET', '/bad/%ZZ');
    expect(requestLines(badUrl.headers.get('x-request-id'))).toEqual([expect.objectContaining({ status: 400 })]);
  });

  it('never contain passwords, API keys or access tokens, in headers, bodies, responses or URLs', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const login = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
    const token = login.body.accessToken as string;
    await gw.call('POST', '/auth/login', { body: { email: m.email, password: 'a wrong but secret password' } });
    await gw.call('GET', '/ping', { apiKey: m.apiKey });
    await gw.call('GET', '/ping', { apiKey: m.liveKey });
    await gw.call('GET', '/ping', { headers: { authorization: `Bearer ${m.apiKey}` } });
    const rotated = (
      await gw.call('PUT', `/users/${m.userId}/apikey`, { headers: { authorization: `Bearer ${token}` } })
    ).body as string;
    await gw.call('GET', '/ping', { apiKey: rotated });
    await gw.call('GET', `/ping?apiKey=${rotated}&token=${token}`, { apiKey: rotated });
    await gw.call('GET', `/no/such/route?apiKey=${rotated}`);
    await gw.call('GET', `/keys/${rotated}/${token}`);
    await gw.call('GET', `/v1/ping?apiKey=${rotated}`);

    const text = gw.logs();
    expect(text).toContain(`"merchantId":${m.merchantId}`);
    for (const secret of [m.password, 'a wrong but secret password', m.apiKey, m.liveKey!, rotated, token]) {
      expect(text).not.toContain(secret);
    }
    for (const key of [m.apiKey, m.liveKey!, rotated]) expect(text).not.toContain(key.slice(12));
    expect(text).not.toContain(token.split('.')[2]);
  });
});
