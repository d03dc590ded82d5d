import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { PASSWORD, useGateway, type TestMerchant } from '../helpers/gateway.js';
import { startSmtpServer } from '../notifications/smtp.js';
import { teammate } from '../panel/fixtures.js';
import { session, type Signed } from '../team/fixtures.js';
import { accountLink, stable } from './fixtures.js';

/**
 * Passwords over HTTP, with a real SMTP receiver: the change from the panel (current password required,
 * the password rules, every other session and access token ended, the current session kept), the reset
 * by an e-mailed single-use link valid 1 hour (the same answer for an e-mail no user has), and a removed
 * user's credentials refused at once.
 */
const NEW_PASSWORD = 'a brand new long password';
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
// Started after the SMTP server above (hooks run in order).
const gw = useGateway(() => ({ clock, env: { SMTP_URL: smtp.url } }));
afterAll(async () => {
  await smtp.close();
});

const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
const resetMailsTo = (email: string) =>
  mailsTo(email).filter((mail) => mail.subject === 'Choose a new password for the control panel');

const login = (email: string, password = PASSWORD) => gw.call('POST', '/auth/login', { body: { email, password } });

async function bearer(m: Pick<TestMerchant, 'email'>, password = PASSWORD) {
  const res = await login(m.email, password);
  expect(res.status, res.text).toBe(200);
  return { headers: { authorization: `Bearer ${res.body.accessToken}` } };
}

const changePassword = (s: Signed, currentPassword: string, newPassword: string) =>
  gw.call('PUT', '/auth/password', { ...s, body: { currentPassword, newPassword } });

const requestReset = (email: string) => gw.call('POST', '/auth/password-reset', { body: { email } });
const confirmReset = (token: string, password = NEW_PASSWORD) =>
  gw.call('POST', '/auth/password-reset/confirm', { body: { token, password } });

/** Requests a reset for the user (`typed` as they typed it) and answers the link of the mail it sent. */
async function resetLink(email: string, typed = email) {
  const before = resetMailsTo(email).length;
  const res = await requestReset(typed);
  expect(res.status, res.text).toBe(202);
  await gw.runJobs();
  const mails = resetMailsTo(email);
  expect(mails).toHaveLength(before + 1);
  return { answer: res, mail: mails[before], ...accountLink(mails[before], 'reset-password') };
}

describe('changing the password in the panel', () => {
  it('needs the current password, applies the password rules, and changes nothing when refused', async () => {
    const m = await gw.merchant();
    const s = await session(gw, m.email);
    const wrong = await changePassword(s, 'not my password', NEW_PASSWORD);
    expectErrorGuide(wrong, 'INVALID_CREDENTIALS');
    expect(wrong.body.details).toEqual({ field: 'currentPassword' });
    const short = await changePassword(s, PASSWORD, 'short');
    expectErrorGuide(short, 'INVALID_FORMAT');
    expect(short.body.details).toEqual({ field: 'password', value: '[redacted]' });
    // Like any change from the panel: the session's CSRF token is required.
    expectErrorGuide(
      await gw.call('PUT', '/auth/password', {
        headers: { cookie: s.headers.cookie },
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      }),
      'FORBIDDEN',
    );
    // Not with an API key or a bearer token: the panel's session only.
    expectErrorGuide(
      await gw.call('PUT', '/auth/password', {
        ...(await bearer(m)),
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      }),
      'UNAUTHORIZED',
    );
    // The old password still signs in, the session still works.
    expect((await login(m.email)).status).toBe(200);
    expect((await gw.call('GET', '/auth/session', s)).status).toBe(200);
  });

  it('counts wrong current passwords like failed sign-ins: 10 lock the change (and the sign-in) from that address', async () => {
    const m = await gw.merchant();
    const s = await session(gw, m.email);
    for (let i = 0; i < 10; i++)
      expectErrorGuide(await changePassword(s, `guess ${i}`, NEW_PASSWORD), 'INVALID_CREDENTIALS');
    expectErrorGuide(await changePassword(s, PASSWORD, NEW_PASSWORD), 'ACCOUNT_LOCKED');
    expect((await login(m.email)).status).toBe(429);
  });

  it('ends every other session and every access token of the user; the session that changed it stays', async () => {
    const m = await gw.merchant();
    const other = await teammate(gw, m, 'developer');
    const current = await session(gw, m.email);
    const elsewhere = await session(gw, m.email);
    const token = await bearer(m);
    const othersSession = await session(gw, other.email);
    const othersToken = await bearer(other);

    const res = await changePassword(current, PASSWORD, NEW_PASSWORD);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ passwordChanged: true });

    expect((await gw.call('GET', '/auth/session', current)).status).toBe(200);
    expect((await gw.call('GET', '/ping', current)).status).toBe(200);
    expectErrorGuide(await gw.call('GET', '/auth/session', elsewhere), 'SESSION_EXPIRED');
    expectErrorGuide(await gw.call('GET', `/users/${m.userId}/apikeys`, token), 'UNAUTHORIZED');
    expectErrorGuide(await gw.call('PUT', `/users/${m.userId}/apikey?mode=test`, token), 'UNAUTHORIZED');
    // Nobody else's.
    expect((await gw.call('GET', '/auth/session', othersSession)).status).toBe(200);
    expect((await gw.call('GET', `/users/${other.userId}/apikeys`, othersToken)).status).toBe(200);

    // The new password signs in, the old one no longer; a token issued now works.
    expectErrorGuide(await login(m.email), 'INVALID_CREDENTIALS');
    const fresh = await bearer(m, NEW_PASSWORD);
    expect((await gw.call('GET', `/users/${m.userId}/apikeys`, fresh)).status).toBe(200);

    // The audit log names it.
    const audit = await gw.call('GET', '/audit-log', current);
    expect(audit.body.data[0]).toMatchObject({
      action: 'user.password_changed',
      target: '/auth/password',
      by: m.email,
    });
  });
});

describe('resetting a forgotten password', () => {
  it('e-mails a single-use link valid 1 hour whose token is stored only as its SHA-256', async () => {
    const m = await gw.merchant();
    const { answer, mail, link, token } = await resetLink(m.email, ` ${m.email.toUpperCase()}`);
    expect(answer.body).toEqual({ message: expect.stringContaining('If a user has this e-mail address') });
    expect(mail.to).toEqual([m.email]);
    expect(link).toBe(`${gw.config.publicUrl}/panel/#/reset-password?token=${token}`);
    expect(token).toMatch(/^pwr_[\w-]{43}$/);
    const row = await gw.db
      .selectFrom('account_links')
      .select(['token_hash', 'expires_at', 'created_at'])
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow();
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(3600_000);
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
    `.execute(gw.db);
    for (const { table_name } of tables.rows) {
      const rows = JSON.stringify((await sql`select * from ${sql.table(table_name)}`.execute(gw.db)).rows);
      expect({ table_name, holdsToken: rows.includes(token) }).toEqual({ table_name, holdsToken: false });
    }
    expect(gw.logs()).not.toContain(token);
  });

  it('sets the new password once, ends every session and access token, and lifts the locks', async () => {
    const m = await gw.merchant();
    const s = await session(gw, m.email);
    const token = await bearer(m);
    // The owner forgot the password and locked themselves out trying.
    for (let i = 0; i < 10; i++) await login(m.email, `forgotten ${i}`);
    expect((await login(m.email)).status).toBe(429);
    const link = await resetLink(m.email);

    const short = await confirmReset(link.token, 'short');
    expectErrorGuide(short, 'INVALID_FORMAT');
    const res = await confirmReset(link.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ passwordReset: true });

    expectErrorGuide(await gw.call('GET', '/auth/session', s), 'SESSION_EXPIRED');
    expectErrorGuide(await gw.call('GET', `/users/${m.userId}/apikeys`, token), 'UNAUTHORIZED');
    expectErrorGuide(await login(m.email), 'INVALID_CREDENTIALS');
    expect((await login(m.email, NEW_PASSWORD)).status).toBe(200);

    const again = await confirmReset(link.token, 'yet another long password');
    expectErrorGuide(again, 'LINK_INVALID');
    expect(again.body).toMatchObject({ code: 'AUTH006', details: { reason: 'used' } });
    expect((await login(m.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('refuses a link after 1 hour (the gateway’s clock), and unknown or malformed tokens, changing nothing', async () => {
    const m = await gw.merchant();
    const { token } = await resetLink(m.email);
    clock.advance(3600);
    const expired = await confirmReset(token);
    expectErrorGuide(expired, 'LINK_INVALID');
    expect(expired.body.details).toEqual({ reason: 'expired' });
    for (const unknown of [`pwr_${'A'.repeat(43)}`, 'not a token', token.replace('pwr_', 'sil_')]) {
      expect((await confirmReset(unknown)).body.details).toEqual({ reason: 'unknown' });
    }
    expect((await login(m.email)).status).toBe(200);
  });

  it('answers an e-mail no user has exactly alike, and sends nothing', async () => {
    const m = await gw.merchant();
    const known = await requestReset(m.email);
    const nobody = `nobody-${Date.now()}@example.com`;
    const unknown = await requestReset(nobody);
    expect(unknown.status).toBe(202);
    expect(stable(unknown.body)).toEqual(stable(known.body));
    expect(unknown.headers.get('content-type')).toBe(known.headers.get('content-type'));
    await gw.runJobs();
    expect(mailsTo(nobody)).toEqual([]);
    expect(resetMailsTo(m.email)).toHaveLength(1);
  });

  it('sends at most 3 links an hour to one user, answering alike', async () => {
    const m = await gw.merchant();
    for (let i = 0; i < 5; i++) expect((await requestReset(m.email)).status).toBe(202);
    await gw.runJobs();
    expect(resetMailsTo(m.email)).toHaveLength(3);
    clock.advance(3601);
    await resetLink(m.email);
  });
});

describe('a user removed from the team', () => {
  it('is refused at once with the bearer token and the panel session they held, and gets no reset link', async () => {
    const m = await gw.merchant();
    const owner = await session(gw, m.email);
    const dev = await teammate(gw, m, 'developer');
    const token = await bearer(dev);
    const devSession = await session(gw, dev.email);
    expect((await gw.call('GET', `/users/${dev.userId}/apikeys`, token)).status).toBe(200);

    const removed = await gw.call('DELETE', `/team/members/${dev.userId}`, owner);
    expect(removed.status, removed.text).toBe(200);

    expectErrorGuide(await gw.call('GET', `/users/${dev.userId}/apikeys`, token), 'UNAUTHORIZED');
    expectErrorGuide(await gw.call('PUT', `/users/${dev.userId}/apikey?mode=test`, token), 'UNAUTHORIZED');
    expectErrorGuide(await gw.call('GET', '/auth/session', devSession), 'SESSION_EXPIRED');
    expectErrorGuide(await gw.call('GET', `/users/${dev.userId}/apikeys`, devSession), 'SESSION_EXPIRED');
    expect((await requestReset(dev.email)).status).toBe(202);
    await gw.runJobs();
    expect(resetMailsTo(dev.email)).toEqual([]);
  });
});
