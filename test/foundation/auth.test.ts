import { describe, expect, it } from 'vitest';
import { decodeJwt, expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';

const gw = useGateway();

const login = (email: string, password: string) => gw.call('POST', '/auth/login', { body: { email, password } });

/** An error body without the parts that differ on every response. */
const stable = (body: Record<string, unknown>) => {
  const { requestId: _r, timestamp: _t, ...rest } = body;
  return rest;
};

async function failTimes(email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) expectErrorGuide(await login(email, 'not the password'), 'INVALID_CREDENTIALS');
}

describe('POST /auth/login', () => {
  it('answers an access token (HS256, issuer, audience, one hour) and its ISO 8601 UTC expiry', async () => {
    const m = await gw.merchant();
    const res = await login(m.email, m.password);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expireDate']);
    expect(res.body.expireDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(Date.parse(res.body.expireDate)).toBe(gw.clock.now().getTime() + 3600_000);

    const { header, claims } = decodeJwt(res.body.accessToken);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(claims).toMatchObject({
      sub: String(m.userId),
      mid: m.merchantId,
      iss: 'svc-gateway',
      aud: 'svc-gateway:control-panel',
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.exp * 1000).toBe(Date.parse(res.body.expireDate));
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('treats the e-mail case-insensitively', async () => {
    const m = await gw.merchant();
    expect((await login(m.email.toUpperCase(), m.password)).status).toBe(200);
  });

  it('answers an unknown e-mail and a wrong password with the same 401 body', async () => {
    const m = await gw.merchant();
    const wrongPassword = await login(m.email, 'not the password');
    const unknownEmail = await login(`nobody-${Date.now()}@example.com`, 'not the password');
    expectErrorGuide(wrongPassword, 'INVALID_CREDENTIALS');
    expectErrorGuide(unknownEmail, 'INVALID_CREDENTIALS');
    expect(stable(unknownEmail.body)).toEqual(stable(wrongPassword.body));
    expect(wrongPassword.body.code).toBe('AUTH003');
  });

  describe('lock-out', () => {
    let m: TestMerchant;
    let lockedBody: Record<string, unknown>;

    it('locks the account for 30 minutes after 10 failures, even for the right password', async () => {
      m = await gw.merchant();
      await failTimes(m.email, 10);
      const locked = await login(m.email, m.password);
      expectErrorGuide(locked, 'ACCOUNT_LOCKED');
      expect(locked.status).toBe(429);
      expect(locked.body.details).toEqual({ retryAfter: 1800 });
      expect(locked.headers.get('retry-after')).toBe('1800');
      lockedBody = stable(locked.body);

      gw.clock.advance(1799);
      const stillLocked = await login(m.email, m.password);
      expect(stillLocked.status).toBe(429);
      expect(stillLocked.body.details).toEqual({ retryAfter: 1 });
      expect(stillLocked.headers.get('retry-after')).toBe('1');
    });

    it('lets the right password in once the 30 minutes are over', async () => {
      gw.clock.advance(1);
      const res = await login(m.email, m.password);
      expect(res.status).toBe(200);
      expect(res.body.accessToken).toBeTruthy();
    });

    it('locks unknown e-mails the same way, so locking reveals no account', async () => {
      const unknown = `ghost-${Date.now()}@example.com`;
      await failTimes(unknown, 10);
      const locked = await login(unknown, 'anything at all');
      expect(locked.status).toBe(429);
      expect(stable(locked.body)).toEqual(lockedBody);
      expect(locked.headers.get('retry-after')).toBe('1800');
    });

    it('counts failures per e-mail however it is capitalised, and forgets them after a successful sign-in', async () => {
      const other = await gw.merchant();
      await failTimes(other.email.toUpperCase(), 9);
      expect((await login(other.email, other.password)).status).toBe(200);
      await failTimes(other.email, 9);
      expect((await login(other.email, other.password)).status).toBe(200);
      await failTimes(other.email, 9);
      await failTimes(other.email.toUpperCase(), 1);
      expect((await login(other.email, other.password)).status).toBe(429);
    });

    it('does not lock anyone else', async () => {
      const bystander = await gw.merchant();
      expect((await login(bystander.email, bystander.password)).status).toBe(200);
    });
  });
});
