import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { PASSWORD, useGateway, type CallOptions, type CallResult, type TestMerchant } from '../helpers/gateway.js';
import { startSmtpServer } from '../notifications/smtp.js';
import { signedFrom, type Signed } from '../team/fixtures.js';
import { accountLink, from, stable } from './fixtures.js';

/**
 * Guessing passwords over HTTP from many addresses and many e-mails: every sign-in route is limited per
 * client address whatever e-mail or token it names (the sign-in quota, 20 a minute), the lock-out of an
 * e-mail holds only for the address that earned it, and the account-wide guard lets the owner in through
 * an e-mailed single-use link while every guess gets the same answer. Client addresses come from
 * X-Forwarded-For, which the gateway believes from its loopback proxy (TRUSTED_PROXIES).
 */
const SIGN_IN_MAX = 20;
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
// Started after the SMTP server above (hooks run in order).
const gw = useGateway(() => ({
  clock,
  env: { SMTP_URL: smtp.url, TRUSTED_PROXIES: '127.0.0.1', SIGNIN_RATE_LIMIT_MAX: String(SIGN_IN_MAX) },
}));
afterAll(async () => {
  await smtp.close();
});

let addresses = 0;
/** A client address no test used before. */
const newAddress = () => `198.51.100.${++addresses}`;
let emails = 0;
const newEmail = () => `someone${++emails}-${Date.now()}@example.com`;
const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

function startOfNextMinute(): void {
  clock.advance(60 - ((clock.now().getTime() / 1000) % 60));
}

async function sessionFrom(address: string, m: Pick<TestMerchant, 'email'>, password = PASSWORD): Promise<Signed> {
  const res = await gw.call('POST', '/auth/session', { ...from(address), body: { email: m.email, password } });
  expect(res.status, res.text).toBe(200);
  return signedFrom(res);
}

/** A sign-in route, and the call of attempt `i` on it: each names another e-mail or token. */
interface Route {
  name: string;
  status: number;
  attempt: (i: number, address: string) => Promise<CallResult>;
}

const post = (path: string, address: string, body: unknown, options: CallOptions = {}) =>
  gw.call('POST', path, { ...options, headers: { ...options.headers, ...from(address).headers }, body });
const token = (prefix: string, i: number) => `${prefix}_${String(i).padStart(43, 'A')}`;

async function signInRoutes(): Promise<Route[]> {
  const m = await gw.merchant();
  // The password change checks the current password: each attempt gives the right one, changing nothing.
  const own = await sessionFrom(newAddress(), m);
  return [
    {
      name: 'POST /auth/login',
      status: 401,
      attempt: (_i, address) => post('/auth/login', address, { email: newEmail(), password: 'guess' }),
    },
    {
      name: 'POST /auth/session',
      status: 401,
      attempt: (_i, address) => post('/auth/session', address, { email: newEmail(), password: 'guess' }),
    },
    {
      name: 'POST /team/invitations/accept',
      status: 410,
      attempt: (i, address) =>
        post('/team/invitations/accept', address, { token: token('inv', i), password: PASSWORD }),
    },
    {
      name: 'POST /auth/password-reset',
      status: 202,
      attempt: (_i, address) => post('/auth/password-reset', address, { email: newEmail() }),
    },
    {
      name: 'POST /auth/password-reset/confirm',
      status: 410,
      attempt: (i, address) =>
        post('/auth/password-reset/confirm', address, { token: token('pwr', i), password: PASSWORD }),
    },
    {
      name: 'POST /auth/session/link',
      status: 410,
      attempt: (i, address) => post('/auth/session/link', address, { token: token('sil', i) }),
    },
    {
      name: 'PUT /auth/password',
      status: 200,
      attempt: (_i, address) =>
        gw.call('PUT', '/auth/password', {
          headers: { ...own.headers, ...from(address).headers },
          body: { currentPassword: PASSWORD, newPassword: PASSWORD },
        }),
    },
  ];
}

describe('the sign-in quota of a client address', () => {
  it('limits every sign-in route to 20 attempts a minute per address, whatever e-mail or token each names (429, Retry-After)', async () => {
    const routes = await signInRoutes();
    startOfNextMinute();
    for (const route of routes) {
      const attacker = newAddress();
      for (let i = 1; i <= SIGN_IN_MAX; i++) {
        const res = await route.attempt(i, attacker);
        expect({ route: route.name, i, status: res.status }).toEqual({ route: route.name, i, status: route.status });
        expect(res.headers.get('ratelimit')).toBe(`"sign-in";r=${SIGN_IN_MAX - i};t=60`);
        expect(res.headers.get('ratelimit-policy')).toBe(`"sign-in";q=${SIGN_IN_MAX};w=60`);
      }
      const refused = await route.attempt(SIGN_IN_MAX + 1, attacker);
      expectErrorGuide(refused, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body).toMatchObject({
        code: 'RATE001',
        message: `Rate limit of ${SIGN_IN_MAX} requests per 60 seconds exceeded; retry after 60 seconds`,
        details: { limit: SIGN_IN_MAX, window: 60, retryAfter: 60 },
      });
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.headers.get('ratelimit')).toBe('"sign-in";r=0;t=60');
      // Another address is served, on the same route.
      const elsewhere = await route.attempt(SIGN_IN_MAX + 2, newAddress());
      expect({ route: route.name, status: elsewhere.status }).toEqual({ route: route.name, status: route.status });
    }
  });

  it('is one quota for all the sign-in routes of an address, and full again the next minute', async () => {
    const routes = await signInRoutes();
    startOfNextMinute();
    const attacker = newAddress();
    for (let i = 1; i <= SIGN_IN_MAX; i++) {
      const route = routes[i % routes.length];
      expect((await route.attempt(i, attacker)).status).toBe(route.status);
    }
    for (const route of routes) expectErrorGuide(await route.attempt(0, attacker), 'RATE_LIMIT_EXCEEDED');
    // Other routes of the address are not sign-ins: they keep their own quota.
    expect((await gw.call('GET', '/openapi.json', from(attacker))).status).toBe(200);
    startOfNextMinute();
    expect((await routes[0].attempt(0, attacker)).status).toBe(routes[0].status);
  });
});

describe('the sign-in quota of an IPv6 client', () => {
  it('is its /64 prefix: one host holds all of it, so its addresses share one quota (and one lock)', async () => {
    startOfNextMinute();
    const guess = (address: string) => post('/auth/session', address, { email: newEmail(), password: 'guess' });
    for (let i = 1; i <= SIGN_IN_MAX; i++) expect((await guess(`2001:db8:0:7::${i.toString(16)}`)).status).toBe(401);
    expectErrorGuide(await guess('2001:db8:0:7:ffff:ffff:ffff:1'), 'RATE_LIMIT_EXCEEDED');
    expect((await guess('2001:db8:0:8::1')).status).toBe(401);

    const m = await gw.merchant();
    for (let i = 0; i < 10; i++) {
      await post('/auth/login', `2001:db8:0:9::${i + 1}`, { email: m.email, password: `guess ${i}` });
    }
    expectErrorGuide(
      await post('/auth/login', '2001:db8:0:9::aa', { email: m.email, password: PASSWORD }),
      'ACCOUNT_LOCKED',
    );
    expect((await post('/auth/login', '2001:db8:0:a::1', { email: m.email, password: PASSWORD })).status).toBe(200);
  });
});

describe('the lock-out', () => {
  it('locks an e-mail only from the address that failed 10 times: its owner still signs in from elsewhere', async () => {
    startOfNextMinute();
    const m = await gw.merchant();
    const attacker = newAddress();
    for (let i = 0; i < 10; i++) {
      expectErrorGuide(
        await post('/auth/session', attacker, { email: m.email, password: `guess ${i}` }),
        'INVALID_CREDENTIALS',
      );
    }
    // From the attacker's address, even the right password is refused for 30 minutes, on both sign-ins.
    const locked = await post('/auth/session', attacker, { email: m.email, password: PASSWORD });
    expectErrorGuide(locked, 'ACCOUNT_LOCKED');
    expect(locked.body.details).toEqual({ retryAfter: 1800 });
    expect(locked.headers.get('retry-after')).toBe('1800');
    expect((await post('/auth/login', attacker, { email: m.email, password: PASSWORD })).status).toBe(429);

    // The owner, elsewhere, is not affected.
    const owner = newAddress();
    const signedIn = await sessionFrom(owner, m);
    expect(signedIn.session.user.email).toBe(m.email);
    const login = await post('/auth/login', owner, { email: m.email, password: PASSWORD });
    expect(login.status, login.text).toBe(200);

    // The merchant hears of the lock, with the address.
    await gw.runJobs();
    const notices = mailsTo(m.email).filter((mail) => mail.subject === 'Sign-in locked after repeated failed attempts');
    expect(notices).toHaveLength(1);
    expect(notices[0].raw).toContain(attacker);

    clock.advance(1800);
    expect((await post('/auth/session', attacker, { email: m.email, password: PASSWORD })).status).toBe(200);
  });

  it('guards an e-mail guessed at from many addresses: a right password gets a single-use sign-in link by e-mail, any other the same answer', async () => {
    startOfNextMinute();
    const m = await gw.merchant();
    const ghost = newEmail();
    // Five addresses, ten wrong passwords each: 50 failures in 30 minutes, for an account and for an e-mail no account has.
    for (let a = 0; a < 5; a++) {
      const attacker = newAddress();
      for (let i = 0; i < 10; i++) {
        for (const email of [m.email, ghost]) {
          expect((await post('/auth/login', attacker, { email, password: `guess ${a}-${i}` })).status).toBe(401);
        }
      }
    }
    await gw.runJobs();
    const before = mailsTo(m.email).length;

    // The owner, from an address of their own, with the right password: no session, but a mail.
    const owner = newAddress();
    const guarded = await post('/auth/session', owner, { email: m.email, password: PASSWORD });
    expectErrorGuide(guarded, 'ACCOUNT_LOCKED');
    expect(guarded.body.details).toEqual({ retryAfter: 1800, emailLink: true });
    expect(guarded.headers.get('retry-after')).toBe('1800');
    expect(guarded.headers.get('set-cookie')).toBeNull();
    // A guess from a fresh address, and the e-mail no account has, are answered exactly alike.
    const guess = await post('/auth/session', newAddress(), { email: m.email, password: 'one more guess' });
    const nobody = await post('/auth/session', newAddress(), { email: ghost, password: 'one more guess' });
    expect(stable(guess.body)).toEqual(stable(guarded.body));
    expect(stable(nobody.body)).toEqual(stable(guarded.body));
    expect((await post('/auth/login', owner, { email: m.email, password: PASSWORD })).body.details).toEqual({
      retryAfter: 1800,
      emailLink: true,
    });

    await gw.runJobs();
    const links = mailsTo(m.email)
      .slice(before)
      .filter((mail) => mail.subject === 'Your sign-in link for the control panel');
    // One per right password (the session's and the login's); the guesses sent nothing.
    expect(links).toHaveLength(2);
    expect(smtp.mails.filter((mail) => mail.to.includes(ghost))).toEqual([]);
    const { token } = accountLink(links[0], 'sign-in-link');
    const res = await post('/auth/session/link', owner, { token });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^svc_panel=pst_/);
    expect(res.body.user).toMatchObject({ email: m.email });
    expect((await gw.call('GET', '/auth/session', signedFrom(res))).status).toBe(200);
    const again = await post('/auth/session/link', owner, { token });
    expectErrorGuide(again, 'LINK_INVALID');
    expect(again.body.details).toEqual({ reason: 'used' });

    // 30 minutes on, the password alone signs in again.
    clock.advance(1800);
    expect((await post('/auth/session', owner, { email: m.email, password: PASSWORD })).status).toBe(200);
  });

  it('refuses a sign-in link after 15 minutes', async () => {
    startOfNextMinute();
    const m = await gw.merchant();
    for (let a = 0; a < 5; a++) {
      const attacker = newAddress();
      for (let i = 0; i < 10; i++) await post('/auth/login', attacker, { email: m.email, password: `guess ${i}` });
    }
    expect((await post('/auth/session', newAddress(), { email: m.email, password: PASSWORD })).status).toBe(429);
    await gw.runJobs();
    const mail = mailsTo(m.email).find((mail) => mail.subject === 'Your sign-in link for the control panel')!;
    clock.advance(15 * 60);
    const expired = await post('/auth/session/link', newAddress(), { token: accountLink(mail, 'sign-in-link').token });
    expectErrorGuide(expired, 'LINK_INVALID');
    expect(expired.body.details).toEqual({ reason: 'expired' });
  });
});

describe('the counts of failures', () => {
  it('are forgotten after a day without a failure: e-mails rotated by a guesser do not pile up', async () => {
    const email = newEmail();
    const attacker = newAddress();
    for (let i = 0; i < 9; i++) await post('/auth/login', attacker, { email, password: `guess ${i}` });
    const rows = async () =>
      (await gw.db.selectFrom('login_failures').select('failures').where('email', '=', email).execute()).length +
      (await gw.db.selectFrom('sign_in_guards').select('failures').where('email', '=', email).execute()).length;
    expect(await rows()).toBe(2);
    clock.advance(23 * 3600);
    await gw.runJobs();
    expect(await rows()).toBe(2);
    clock.advance(3601);
    await gw.runJobs();
    expect(await rows()).toBe(0);
    // Forgotten, so the next ten failures lock again from the start: the tenth, not the first.
    for (let i = 0; i < 9; i++)
      expect((await post('/auth/login', attacker, { email, password: 'x' })).status).toBe(401);
    expect((await post('/auth/login', attacker, { email, password: 'x' })).status).toBe(401);
    expectErrorGuide(await post('/auth/login', attacker, { email, password: 'x' }), 'ACCOUNT_LOCKED');
  });
});
