import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { PASSWORD, startTestGateway, useGateway, type TestMerchant } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { startSmtpServer } from '../notifications/smtp.js';
import { invitationLink, session, signedFrom, type Signed } from './fixtures.js';

/**
 * The team over HTTP: invitations by e-mail through a real SMTP receiver (the link's token never stored
 * in clear), acceptance with its refusals, owner-only changes, the last owner kept, and the audit log.
 */
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

let counter = 0;
const newEmail = () => `invitee${++counter}-${Date.now()}@example.com`;
const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

async function invite(owner: Signed, email: string, role = 'developer') {
  const res = await gw.call('POST', '/team/invitations', { ...owner, body: { email, role } });
  expect(res.status, res.text).toBe(201);
  await gw.runJobs();
  const mails = mailsTo(email);
  expect(mails).toHaveLength(1);
  return { invitation: res.body, location: res.headers.get('location'), mail: mails[0], ...invitationLink(mails[0]) };
}

const accept = (token: string, password = PASSWORD) =>
  gw.call('POST', '/team/invitations/accept', { body: { token, password } });

/** Every row of every table of ours, as text: where a secret must not be. */
async function wholeDatabase(): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
  `.execute(gw.db);
  const dumps = await Promise.all(
    tables.rows.map(async ({ table_name }) =>
      JSON.stringify((await sql`select * from ${sql.table(table_name)}`.execute(gw.db)).rows),
    ),
  );
  return dumps.join('\n');
}

async function ownerOf(m: TestMerchant) {
  return session(gw, m.email);
}

describe('inviting', () => {
  it('mails the invitee alone a link whose token is stored only as its SHA-256', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const email = newEmail();
    const { invitation, location, mail, link, token } = await invite(owner, email, 'viewer');
    expect(invitation).toMatchObject({ email, role: 'viewer', invitedBy: m.email, expired: false });
    expect(location).toBe(`/team/invitations/${invitation.invitationId}`);
    expect(Date.parse(invitation.expiresAt) - clock.now().getTime()).toBe(7 * 24 * 3600 * 1000);
    expect(mail.to).toEqual([email]);
    expect(mail.subject).toContain(`Merchant`);
    expect(link).toBe(`${gw.config.publicUrl}/panel/#/accept?token=${token}`);
    // Nobody else of the merchant gets it.
    expect(mailsTo(m.email)).toEqual([]);

    // The token is nowhere in the database, not even in the stored notice: only its hash is.
    const everything = await wholeDatabase();
    expect(everything).not.toContain(token);
    expect(everything).toContain(sha256Hex(token));
    const notices = await gw.call('GET', '/notices', { apiKey: m.apiKey });
    expect(notices.body.data).toMatchObject([{ kind: 'invitation', to: email, sentAt: expect.any(String) }]);
    expect(gw.logs()).not.toContain(token);

    // The owner sees it pending.
    const team = await gw.call('GET', '/team', owner);
    expect(team.body.members).toEqual([{ userId: m.userId, email: m.email, role: 'owner', since: expect.any(String) }]);
    expect(team.body.invitations).toMatchObject([{ email, role: 'viewer', invitedBy: m.email }]);
  });

  it('refuses an e-mail that already has a user, in this merchant or another (TEAM002)', async () => {
    const m = await gw.merchant();
    const other = await gw.merchant();
    const owner = await ownerOf(m);
    for (const email of [other.email, m.email.toUpperCase()]) {
      const res = await gw.call('POST', '/team/invitations', { ...owner, body: { email, role: 'viewer' } });
      expectErrorGuide(res, 'EMAIL_ALREADY_REGISTERED');
      expect(res.body.code).toBe('TEAM002');
    }
    expectErrorGuide(
      await gw.call('POST', '/team/invitations', { ...owner, body: { email: 'not an address', role: 'viewer' } }),
      'INVALID_FORMAT',
    );
    expectErrorGuide(
      await gw.call('POST', '/team/invitations', { ...owner, body: { email: newEmail(), role: 'admin' } }),
      'INVALID_FORMAT',
    );
    expect((await gw.call('GET', '/team', owner)).body.invitations).toEqual([]);
  });

  it('is for owners only: developers and viewers read the team but get 403 on every change', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const { invitation } = await invite(owner, newEmail());
    for (const role of ['developer', 'viewer'] as const) {
      const user = await teammate(gw, m, role);
      const s = await session(gw, user.email);
      const team = await gw.call('GET', '/team', s);
      expect(team.status, team.text).toBe(200);
      expect(team.body.members.map((u: any) => u.email)).toContain(m.email);
      const attempts = [
        gw.call('POST', '/team/invitations', { ...s, body: { email: newEmail(), role: 'owner' } }),
        gw.call('DELETE', `/team/invitations/${invitation.invitationId}`, s),
        gw.call('PATCH', `/team/members/${user.userId}`, { ...s, body: { role: 'owner' } }),
        gw.call('DELETE', `/team/members/${m.userId}`, s),
      ];
      for (const res of await Promise.all(attempts)) expectErrorGuide(res, 'INSUFFICIENT_PERMISSIONS');
    }
    // Nothing changed.
    const team = (await gw.call('GET', '/team', owner)).body;
    expect(team.invitations).toHaveLength(1);
    expect(team.members.map((u: any) => u.role)).toEqual(['owner', 'developer', 'viewer']);
    // The API key is not a way in either.
    expectErrorGuide(await gw.call('GET', '/team', { apiKey: m.apiKey }), 'UNAUTHORIZED');
  });
});

describe('accepting', () => {
  it('creates the user with the invited role in that merchant and signs them in; the link works once', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const email = newEmail();
    const { token } = await invite(owner, email, 'viewer');

    const res = await accept(token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^svc_panel=pst_/);
    expect(res.body).toMatchObject({ user: { email, role: 'viewer' }, merchant: { id: m.merchantId } });
    const invitee = signedFrom(res);
    const me = await gw.call('GET', '/auth/session', invitee);
    expect(me.body.user).toMatchObject({ email, role: 'viewer' });
    // A viewer: reads the merchant's data, changes nothing.
    expect((await gw.call('GET', '/settings', invitee)).status).toBe(200);
    expectErrorGuide(
      await gw.call('PATCH', '/settings', { ...invitee, body: { businessName: 'x' } }),
      'INSUFFICIENT_PERMISSIONS',
    );
    // The password chosen signs in from now on.
    expect((await session(gw, email)).session.user.role).toBe('viewer');

    const team = (await gw.call('GET', '/team', owner)).body;
    expect(team.members.map((u: any) => [u.email, u.role])).toEqual([
      [m.email, 'owner'],
      [email, 'viewer'],
    ]);
    expect(team.invitations).toEqual([]);

    const again = await accept(token, 'another long password');
    expectErrorGuide(again, 'INVITATION_INVALID');
    expect(again.body).toMatchObject({ code: 'TEAM001', details: { reason: 'used' } });
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('refuses an expired, revoked or unknown link, and a short password, changing nothing', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const expiring = await invite(owner, newEmail());
    const revoked = await invite(owner, newEmail());
    const revoke = await gw.call('DELETE', `/team/invitations/${revoked.invitation.invitationId}`, owner);
    expect(revoke.status, revoke.text).toBe(200);
    expectErrorGuide(
      await gw.call('DELETE', `/team/invitations/${revoked.invitation.invitationId}`, owner),
      'NOT_FOUND',
    );
    expect((await accept(revoked.token)).body.details).toEqual({ reason: 'revoked' });
    expect((await accept(`inv_${'A'.repeat(43)}`)).body.details).toEqual({ reason: 'unknown' });
    expect((await accept('not a token')).body.details).toEqual({ reason: 'unknown' });

    const short = await accept(expiring.token, 'short');
    expectErrorGuide(short, 'INVALID_FORMAT');
    expect(short.body.details).toEqual({ field: 'password', value: '[redacted]' });

    clock.advance(7 * 24 * 3600 * 1000);
    const expired = await accept(expiring.token);
    expectErrorGuide(expired, 'INVITATION_INVALID');
    expect(expired.body.details).toEqual({ reason: 'expired' });
    const team = (await gw.call('GET', '/team', await ownerOf(m))).body;
    expect(team.members).toHaveLength(1);
    expect(team.invitations.map((i: any) => [i.email, i.expired])).toEqual([[expiring.invitation.email, true]]);
  });

  it('sends no mail for an invitation revoked before its mail went out', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const email = newEmail();
    const res = await gw.call('POST', '/team/invitations', { ...owner, body: { email, role: 'viewer' } });
    await gw.call('DELETE', `/team/invitations/${res.body.invitationId}`, owner);
    await gw.runJobs();
    expect(mailsTo(email)).toEqual([]);
  });

  it('is rate-limited per address like the sign-in', async () => {
    const limited = await startTestGateway({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await limited.call('POST', '/team/invitations/accept', {
          body: { token: `inv_${'B'.repeat(43)}`, password: PASSWORD },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([410, 410, 410, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('roles and removal', () => {
  it('keeps the last owner: neither demoted nor removed (TEAM003); another owner makes both possible', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const demote = await gw.call('PATCH', `/team/members/${m.userId}`, { ...owner, body: { role: 'developer' } });
    expectErrorGuide(demote, 'LAST_OWNER');
    expect(demote.body.code).toBe('TEAM003');
    expectErrorGuide(await gw.call('DELETE', `/team/members/${m.userId}`, owner), 'LAST_OWNER');

    const dev = await teammate(gw, m, 'developer');
    const promoted = await gw.call('PATCH', `/team/members/${dev.userId}`, { ...owner, body: { role: 'owner' } });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body).toMatchObject({ userId: dev.userId, email: dev.email, role: 'owner' });
    const second = await session(gw, dev.email);
    expect(second.session.user.role).toBe('owner');
    // Now the first owner may step down; the second is then the last.
    const stepDown = await gw.call('PATCH', `/team/members/${m.userId}`, { ...owner, body: { role: 'viewer' } });
    expect(stepDown.body.role).toBe('viewer');
    expectErrorGuide(await gw.call('DELETE', `/team/members/${dev.userId}`, second), 'LAST_OWNER');
    // Another merchant's user is not found.
    const other = await gw.merchant();
    expectErrorGuide(
      await gw.call('PATCH', `/team/members/${other.userId}`, { ...second, body: { role: 'viewer' } }),
      'NOT_FOUND',
    );
  });

  it('removes a user: their session ends, their key stops working, they cannot sign in again', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const dev = await teammate(gw, m, 'developer');
    const devSession = await session(gw, dev.email);
    const key = await gw.call('PUT', `/users/${dev.userId}/apikey?mode=test`, devSession);
    expect(key.status, key.text).toBe(200);
    expect((await gw.call('GET', '/ping', { apiKey: key.body })).status).toBe(200);

    const removed = await gw.call('DELETE', `/team/members/${dev.userId}`, owner);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ userId: dev.userId, removed: true, apiKeysRevoked: 1 });
    expectErrorGuide(await gw.call('GET', '/auth/session', devSession), 'SESSION_EXPIRED');
    expectErrorGuide(await gw.call('GET', '/ping', { apiKey: key.body }), 'INVALID_API_KEY');
    const signIn = await gw.call('POST', '/auth/session', { body: { email: dev.email, password: PASSWORD } });
    expectErrorGuide(signIn, 'INVALID_CREDENTIALS');
    const login = await gw.call('POST', '/auth/login', { body: { email: dev.email, password: PASSWORD } });
    expectErrorGuide(login, 'INVALID_CREDENTIALS');
    expect((await gw.call('GET', '/team', owner)).body.members.map((u: any) => u.email)).toEqual([m.email]);
    expectErrorGuide(await gw.call('DELETE', `/team/members/${dev.userId}`, owner), 'NOT_FOUND');
  });

  it('writes invitations, revocations, role changes and removals to the audit log with who did them', async () => {
    const m = await gw.merchant();
    const owner = await ownerOf(m);
    const { invitation } = await invite(owner, newEmail());
    await gw.call('DELETE', `/team/invitations/${invitation.invitationId}`, owner);
    const dev = await teammate(gw, m, 'developer');
    await gw.call('PATCH', `/team/members/${dev.userId}`, { ...owner, body: { role: 'viewer' } });
    await gw.call('DELETE', `/team/members/${dev.userId}`, owner);
    // Refused changes write nothing.
    await gw.call('DELETE', `/team/members/${m.userId}`, owner);

    const log = await gw.call('GET', '/audit-log', owner);
    expect(log.body.data.map((e: any) => [e.action, e.target, e.by])).toEqual([
      ['team.member_removed', `/team/members/${dev.userId}`, m.email],
      ['team.role_changed', `/team/members/${dev.userId}`, m.email],
      ['team.invitation_revoked', `/team/invitations/${invitation.invitationId}`, m.email],
      ['team.invited', `/team/invitations/${invitation.invitationId}`, m.email],
    ]);
  });
});
