import { describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';

/**
 * The control panel's session over HTTP: the cookie's flags, the CSRF token, the Origin check, the panel
 * session standing in for an API key (mode per request), expiry and sign-out.
 */
const gw = useGateway();

interface Signed {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: any;
}

async function signIn(g: TestGateway, m: TestMerchant): Promise<Signed> {
  const res = await g.call('POST', '/auth/session', { body: { email: m.email, password: m.password } });
  expect(res.status, res.text).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0], csrf: res.body.csrfToken, setCookie, body: res.body };
}

const as = (s: Signed, extra: Record<string, string> = {}) => ({ headers: { cookie: s.cookie, ...extra } });
const changing = (s: Signed, extra: Record<string, string> = {}) => as(s, { 'x-csrf-token': s.csrf, ...extra });

describe('POST /auth/session', () => {
  it('sets an HttpOnly, SameSite=Strict cookie holding a token stored only as its hash', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    expect(s.setCookie).toMatch(/^svc_panel=pst_[0-9A-Za-z]{43}; /);
    expect(s.setCookie).toContain('HttpOnly');
    expect(s.setCookie).toContain('SameSite=Strict');
    expect(s.setCookie).toContain('Path=/');
    // Plain http (development): no Secure flag, which the browser would refuse to store.
    expect(s.setCookie).not.toContain('Secure');
    expect(s.body).toMatchObject({ user: { id: m.userId, email: m.email }, merchant: { id: m.merchantId } });
    expect(s.body.csrfToken).toMatch(/^[\w-]{43}$/);
    // Short-lived: 30 minutes idle.
    expect(Date.parse(s.body.expiresAt)).toBe(gw.clock.now().getTime() + 30 * 60_000);
    const token = s.cookie.split('=')[1];
    const rows = await gw.db
      .selectFrom('panel_sessions')
      .select('token_hash')
      .where('user_id', '=', m.userId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(gw.logs()).not.toContain(token);
  });

  it('refuses a wrong password like the login, and tells the lock-out apart (AUTH004, Retry-After)', async () => {
    const m = await gw.merchant();
    for (let i = 0; i < 10; i++) {
      const res = await gw.call('POST', '/auth/session', { body: { email: m.email, password: 'wrong' } });
      expectErrorGuide(res, 'INVALID_CREDENTIALS');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const locked = await gw.call('POST', '/auth/session', { body: { email: m.email, password: m.password } });
    expectErrorGuide(locked, 'ACCOUNT_LOCKED');
    expect(locked.body.code).toBe('AUTH004');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The bearer login shares the lock.
    expect((await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } })).status).toBe(429);
  });

  it('refuses a sign-in posted from another origin', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/auth/session', {
      body: { email: m.email, password: m.password },
      headers: { origin: 'https://evil.example' },
    });
    expectErrorGuide(res, 'FORBIDDEN');
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('GET /auth/session', () => {
  it('answers the session and the same CSRF token, for a reloaded panel', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    const res = await gw.call('GET', '/auth/session', as(s));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: { id: m.userId }, csrfToken: s.csrf });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('without the cookie: 401 AUTH001', async () => {
    expectErrorGuide(await gw.call('GET', '/auth/session'), 'UNAUTHORIZED');
  });
});

describe('the panel session on the merchant API', () => {
  it('stands in for an API key, in the mode the panel chooses per request', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    const created = await gw.call('POST', '/payment-requests', {
      ...changing(s),
      body: { amount: 12.5, currency: 'EUR', reference: 'panel-made' },
    });
    expect(created.status, created.text).toBe(200);
    // The test key sees what the panel made in test mode; live mode does not.
    const byKey = await gw.call('GET', `/payment-requests/${created.body.paymentRequestId}`, { apiKey: m.apiKey });
    expect(byKey.status, byKey.text).toBe(200);
    const live = await gw.call(
      'GET',
      `/payment-requests/${created.body.paymentRequestId}`,
      as(s, { 'x-panel-mode': 'live' }),
    );
    expect(live.status).toBe(404);
    const test = await gw.call(
      'GET',
      `/payment-requests/${created.body.paymentRequestId}`,
      as(s, { 'x-panel-mode': 'test' }),
    );
    expect(test.body.reference).toBe('panel-made');
    expect((await gw.call('GET', '/settings', as(s, { 'x-panel-mode': 'live' }))).status).toBe(200);
    const ping = await gw.call('GET', '/ping', as(s, { 'x-panel-mode': 'live' }));
    expect(ping.body.message).toContain('live mode');
    const bad = await gw.call('GET', '/ping', as(s, { 'x-panel-mode': 'prod' }));
    expectErrorGuide(bad, 'INVALID_FORMAT');
  });

  it('refuses a change without the CSRF token, with another session’s, or from another origin', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    const other = await signIn(gw, await gw.merchant());
    const patch = (options: { headers: Record<string, string> }) =>
      gw.call('PATCH', '/settings', { ...options, body: { businessName: 'Changed' } });
    expectErrorGuide(await patch(as(s)), 'FORBIDDEN');
    expectErrorGuide(await patch(as(s, { 'x-csrf-token': other.csrf })), 'FORBIDDEN');
    expectErrorGuide(await patch(changing(s, { origin: 'https://evil.example' })), 'FORBIDDEN');
    expect((await gw.call('GET', '/settings', as(s))).body.businessName).not.toBe('Changed');
    const ok = await patch(changing(s, { origin: new URL(gw.config.publicUrl).origin }));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.businessName).toBe('Changed');
  });

  it('an API key still wins over the cookie, and a bad key is not rescued by it', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    const res = await gw.call('GET', '/ping', { ...as(s), apiKey: 'svc_test_sk_' + 'x'.repeat(40) });
    expectErrorGuide(res, 'INVALID_API_KEY');
  });

  it('lists and rotates the user’s own keys (the spec’s bearer path keeps working)', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    const keys = await gw.call('GET', `/users/${m.userId}/apikeys`, as(s));
    expect(keys.body).toEqual([
      { mode: 'test', prefix: m.apiKey.slice(0, 16), createdAt: expect.any(String), exposedAt: null },
    ]);
    expectErrorGuide(await gw.call('PUT', `/users/${m.userId}/apikey?mode=test`, as(s)), 'FORBIDDEN');
    const rotated = await gw.call('PUT', `/users/${m.userId}/apikey?mode=test`, changing(s));
    expect(rotated.body).toMatch(/^svc_test_sk_/);
    expectErrorGuide(await gw.call('GET', '/ping', { apiKey: m.apiKey }), 'INVALID_API_KEY');
    expect((await gw.call('GET', '/ping', { apiKey: rotated.body })).status).toBe(200);
    const another = await gw.merchant();
    expectErrorGuide(await gw.call('GET', `/users/${another.userId}/apikeys`, as(s)), 'FORBIDDEN');
    const login = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
    const bearer = await gw.call('PUT', `/users/${m.userId}/apikey?mode=live`, {
      headers: { authorization: `Bearer ${login.body.accessToken}` },
    });
    expect(bearer.body).toMatch(/^svc_live_sk_/);
  });
});

describe('expiry and sign-out', () => {
  it('expires after 30 idle minutes: 401 AUTH005, and the cookie is cleared', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    gw.clock.advance(20 * 60);
    // Used: the idle time-out moves on.
    expect((await gw.call('GET', '/ping', as(s))).status).toBe(200);
    gw.clock.advance(20 * 60);
    expect((await gw.call('GET', '/ping', as(s))).status).toBe(200);
    gw.clock.advance(31 * 60);
    const expired = await gw.call('GET', '/payment-requests', as(s));
    expectErrorGuide(expired, 'SESSION_EXPIRED');
    expect(expired.body.code).toBe('AUTH005');
    expect(expired.headers.get('set-cookie')).toMatch(/^svc_panel=; .*Max-Age=0/);
    expectErrorGuide(await gw.call('GET', '/auth/session', as(s)), 'SESSION_EXPIRED');
  });

  it('ends after 8 hours however busy', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    for (let i = 0; i < 16; i++) {
      gw.clock.advance(29 * 60);
      expect((await gw.call('GET', '/ping', as(s))).status).toBe(200);
    }
    // 8 hours and a minute after sign-in, 17 minutes after the last use.
    gw.clock.advance(17 * 60);
    expectErrorGuide(await gw.call('GET', '/ping', as(s)), 'SESSION_EXPIRED');
  });

  it('signs out: the session is gone at once and the cookie cleared', async () => {
    const m = await gw.merchant();
    const s = await signIn(gw, m);
    expectErrorGuide(await gw.call('DELETE', '/auth/session', as(s)), 'FORBIDDEN');
    const out = await gw.call('DELETE', '/auth/session', changing(s));
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expectErrorGuide(await gw.call('GET', '/auth/session', as(s)), 'SESSION_EXPIRED');
    expectErrorGuide(await gw.call('GET', '/ping', as(s)), 'SESSION_EXPIRED');
  });
});
