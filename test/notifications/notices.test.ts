import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/storage/db-context.js';
import { ManualClock } from '../../src/lib/clock.js';
import { exchangeLegacyApiKey } from '../../src/modules/checkout-sessions/index.js';
import { reportExposedKey } from '../../src/modules/notifications/index.js';
import { startTestGateway, useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from '../payments/fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';
import { startSmtpServer } from './smtp.js';

const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Receiver;
beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
});
// Started after the SMTP server above (hooks run in order).
const gw = useGateway(() => ({ clock, env: { SMTP_URL: smtp.url } }));
afterAll(async () => {
  await receiver.close();
  await smtp.close();
});

const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

/** Nothing secret may travel by e-mail: no API key, no webhook secret, no password. */
function expectNoSecret(raw: string, m: TestMerchant) {
  expect(raw).not.toContain(m.apiKey);
  expect(raw).not.toMatch(/svc_(test|live)_sk_|whsec_/);
  expect(raw).not.toContain(m.password);
}

async function notices(m: TestMerchant) {
  const res = await gw.call('GET', '/notices', { apiKey: m.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{ kind: string; to: string; subject: string; sentAt: string | null }>;
}

describe('deprecated API version', () => {
  it('answers with Deprecation and Sunset, and reports once a day by webhook event and e-mail', async () => {
    const m = await gw.merchant();
    const headers = { 'x-api-version': '2.0' };
    const first = await gw.call('GET', '/settings', { apiKey: m.apiKey, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('deprecation')).toBe('@1701388800');
    expect(first.headers.get('sunset')).toBe('Sat, 01 Jun 2024 00:00:00 GMT');
    await gw.call('GET', '/settings', { apiKey: m.apiKey, headers });
    const current = await gw.call('GET', '/settings', { apiKey: m.apiKey });
    expect(current.headers.get('deprecation')).toBeNull();

    const events = await gw.call('GET', '/events?type=api.version.deprecated', { apiKey: m.apiKey });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data.object).toMatchObject({
      feature: 'api-version-2.0',
      deprecatedAt: '2023-12-01T00:00:00.000Z',
      sunsetAt: '2024-06-01T00:00:00.000Z',
      migrationNote: expect.stringContaining('docs/notifications.md'),
    });
    await gw.runJobs();
    const mails = mailsTo(m.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Deprecated: X-API-Version 2.0 (sunset 2024-06-01)');
    expectNoSecret(mails[0].raw, m);
    expect(await notices(m)).toEqual([
      expect.objectContaining({
        kind: 'deprecation',
        to: m.email,
        subject: mails[0].subject,
        sentAt: expect.any(String),
      }),
    ]);

    clock.advance(24 * 3600);
    await gw.call('GET', '/settings', { apiKey: m.apiKey, headers });
    const later = await gw.call('GET', '/events?type=api.version.deprecated', { apiKey: m.apiKey });
    expect(later.body.data).toHaveLength(2);
  });
});

describe('e-mail notices', () => {
  it('an exposed key: an api_key.exposed event and an e-mail that names the key by id only', async () => {
    const m = await gw.merchant();
    const keyId = (
      await gw.db.selectFrom('api_keys').select('id').where('user_id', '=', m.userId).executeTakeFirstOrThrow()
    ).id;
    const ctx = { db: gw.db, clock };
    const scope = { merchantId: m.merchantId, livemode: false };
    expect(
      await inTransaction(ctx, (trx) => reportExposedKey(trx, { scope, keyId, where: 'a checkout page URL' })),
    ).toBe(true);
    expect(
      await inTransaction(ctx, (trx) => reportExposedKey(trx, { scope, keyId, where: 'a checkout page URL' })),
    ).toBe(false);
    const events = await gw.call('GET', '/events?type=api_key.exposed', { apiKey: m.apiKey });
    expect(events.body.data.map((e: { data: { object: unknown } }) => e.data.object)).toEqual([
      { keyId, mode: 'test', exposedAt: clock.now().toISOString() },
    ]);
    await gw.runJobs();
    const [mail] = mailsTo(m.email);
    expect(mail.subject).toBe('Your test API key was exposed: rotate it');
    expectNoSecret(mail.raw, m);
  });

  it("the checkout's legacy apiKey parameter: exposed key and deprecated feature, once a day each", async () => {
    const m = await gw.merchant();
    const ctx = { db: gw.db, clock };
    const exchange = async () => {
      const paymentRequestId = await createRequest(gw, m);
      await exchangeLegacyApiKey(ctx, { apiKey: m.apiKey, paymentRequestId });
    };
    await exchange();
    await exchange();
    const exposed = await gw.call('GET', '/events?type=api_key.exposed', { apiKey: m.apiKey });
    expect(exposed.body.data).toHaveLength(1);
    const deprecated = await gw.call('GET', '/events?type=api.version.deprecated', { apiKey: m.apiKey });
    expect(deprecated.body.data.map((e: { data: { object: { feature: string } } }) => e.data.object.feature)).toEqual([
      'checkout-api-key-parameter',
    ]);
    await gw.runJobs();
    expect(mailsTo(m.email).map((mail) => mail.subject)).toEqual(
      expect.arrayContaining([
        'Your test API key was exposed: rotate it',
        expect.stringContaining('the apiKey query parameter of the checkout page'),
      ]),
    );
    for (const mail of mailsTo(m.email)) expectNoSecret(mail.raw, m);
  });

  it('an account locked after 10 failed sign-ins', async () => {
    const m = await gw.merchant();
    for (let i = 0; i < 10; i++) {
      const res = await gw.call('POST', '/auth/login', { body: { email: m.email, password: `wrong password ${i}` } });
      expect(res.status).toBe(401);
    }
    await gw.runJobs();
    const mails = mailsTo(m.email);
    expect(mails.map((mail) => mail.subject)).toEqual(['Sign-in locked after repeated failed attempts']);
    expectNoSecret(mails[0].raw, m);
    expect((await notices(m)).map((n) => n.kind)).toEqual(['account_locked']);
  });

  it('a notification endpoint disabled (410)', async () => {
    const m = await gw.merchant();
    await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/gone` } });
    receiver.answers.push({ status: 410 });
    const id = await createRequest(gw, m);
    await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: h2hCard(CARDS.visa) });
    await gw.runJobs();
    await gw.runJobs();
    const mails = mailsTo(m.email);
    expect(mails.map((mail) => mail.subject)).toEqual([`Notifications to ${new URL(receiver.url).host} stopped`]);
    expectNoSecret(mails[0].raw, m);
  });
});

describe('without SMTP_URL in development', () => {
  it('writes each notice to the file outbox under the data directory', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-outbox-'));
    const local = await startTestGateway({ clock, env: { DATA_DIR: dataDir } });
    try {
      const m = await local.merchant();
      await local.call('GET', '/settings', { apiKey: m.apiKey, headers: { 'x-api-version': '2.0' } });
      await local.runJobs();
      const files = readdirSync(path.join(dataDir, 'outbox'));
      expect(files).toHaveLength(1);
      const message = readFileSync(path.join(dataDir, 'outbox', files[0]), 'utf8');
      expect(message).toContain(`To: ${m.email}`);
      expect(message).toContain('Subject: Deprecated: X-API-Version 2.0 (sunset 2024-06-01)');
      expectNoSecret(message, m);
    } finally {
      await local.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
