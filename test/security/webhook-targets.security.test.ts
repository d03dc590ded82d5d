import ipaddr from 'ipaddr.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORBIDDEN_RANGES } from '../../src/modules/notifications/target-guard.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { CARDS, createRequest, h2hCard, payer } from '../payments/fixtures.js';

/**
 * SSRF through notification URLs, with the guard on (the test gateway runs as development, where
 * private targets are allowed by default). Every spelling of a forbidden address is refused when the
 * URL is set; a name is judged by the address the connection actually goes to.
 */
const gw = useGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
let m: TestMerchant;
let receiver: Receiver;
beforeAll(async () => {
  m = await gw.merchant();
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

const FORBIDDEN = [
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://0x7f.1/hook',
  'http://0x7f000001/hook',
  'http://017700000001/hook',
  'http://0177.0.0.1/hook',
  'http://2130706433/hook',
  'http://0/hook',
  'http://0.0.0.0/hook',
  'http://[::1]/hook',
  'http://[::]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[0:0:0:0:0:ffff:7f00:1]/hook',
  'http://[::ffff:169.254.169.254]/latest/meta-data',
  'http://169.254.169.254/latest/meta-data',
  'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data',
  'http://10.0.0.1/hook',
  'http://012.0.0.1/hook',
  'http://172.16.5.4/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook',
  'http://[fd00::1]/hook',
  'http://[fc00::abcd]/hook',
  'http://[fe80::1]/hook',
  'http://[64:ff9b::7f00:1]/hook',
  'http://[::7f00:1]/hook',
  'http://[::a00:1]/hook',
  'http://[::127.0.0.1]/hook',
  'http://[2002:7f00:1::]/hook',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
  'http://224.0.0.1/hook',
  'https://localhost/hook',
  'https://localhost./hook',
];

describe('notification URLs refused when set', () => {
  for (const url of FORBIDDEN) {
    it(`${url} is refused with 400 WH003`, async () => {
      const res = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: url } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ error: 'WEBHOOK_TARGET_FORBIDDEN', code: 'WH003' });
      expect(res.text).not.toMatch(/\bat\s+\S+\.ts/); // no stack trace
    });
  }

  // The guard's one list, enumerated: the first and last address of every class, and each IPv4 class
  // again as an IPv4-mapped IPv6 address.
  for (const { cidr, what } of FORBIDDEN_RANGES) {
    it(`${cidr} (${what}) is refused from its first to its last address`, async () => {
      const version = cidr.includes(':') ? ipaddr.IPv6 : ipaddr.IPv4;
      const edges = [version.networkAddressFromCIDR(cidr), version.broadcastAddressFromCIDR(cidr)].map(String);
      const hosts =
        version === ipaddr.IPv4 ? [...edges, ...edges.map((a) => `[::ffff:${a}]`)] : edges.map((a) => `[${a}]`);
      for (const host of hosts) {
        const res = await gw.call('PATCH', '/settings', {
          apiKey: m.apiKey,
          body: { notifyUrl: `http://${host}/hook` },
        });
        expect(res.status, `${host}: ${res.text}`).toBe(400);
        expect(res.body.code).toBe('WH003');
      }
    });
  }

  for (const url of ['file:///etc/passwd', 'gopher://shop.example/', 'ftp://shop.example/hook', 'ws://shop.example/']) {
    it(`the scheme of ${url} is refused`, async () => {
      const res = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: url } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe('WH003');
    });
  }

  it('a public address or a name that does not resolve here is accepted', async () => {
    for (const url of [
      'https://93.184.215.14/hook',
      'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook',
      'https://[::ffff:93.184.215.14]/hook',
      'https://hooks.shop.invalid/gateway',
    ]) {
      const res = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: url } });
      expect(res.status, res.text).toBe(200);
    }
  });
});

describe("a payment's notifyUrl refused when the payment is submitted", () => {
  for (const url of [
    'http://0x7f.1/hex',
    'https://localhost/hook',
    'http://[::ffff:169.254.169.254]/',
    'gopher://x/',
  ]) {
    it(`${url} is refused with 400 WH003 and no payment is made`, async () => {
      const id = await createRequest(gw, m);
      const res = await gw.call('POST', `/payments/h2h/${id}`, {
        apiKey: m.apiKey,
        body: { ...h2hCard(CARDS.visa), notifyUrl: url },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({
        error: 'WEBHOOK_TARGET_FORBIDDEN',
        code: 'WH003',
        details: { field: 'notifyUrl', value: url },
      });
      const payments = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
      expect(payments.body.data).toEqual([]);
    });
  }

  it('a UPI submission is checked the same way', async () => {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: m.apiKey,
      body: { ...payer, upiId: 'success@upi', amount: 10.5, unit: 'EUR', notifyUrl: 'http://10.0.0.1/hook' },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('WH003');
  });

  it('a public notifyUrl is accepted', async () => {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: m.apiKey,
      body: { ...h2hCard(CARDS.visa), notifyUrl: 'https://hooks.shop.invalid/gateway' },
    });
    expect(res.status, res.text).toBe(200);
  });
});

/**
 * A URL that passed the check when it was given and reaches a forbidden address now (its name moved,
 * or it was stored before the check existed): written straight into the payment, since the API no
 * longer takes it.
 */
async function payThenRetarget(url: string): Promise<number> {
  const id = await createRequest(gw, m);
  const paid = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: h2hCard(CARDS.visa) });
  expect(paid.status, paid.text).toBe(200);
  await sql`update payments set options = options || ${JSON.stringify({ notifyUrl: url })}::jsonb where id = ${paid.body.paymentId}`.execute(
    gw.db,
  );
  return paid.body.paymentId as number;
}

describe('at delivery', () => {
  it('refuses a name that resolves to loopback at connect time, and sends nothing', async () => {
    const port = new URL(receiver.url).port;
    const paymentId = await payThenRetarget(`http://localhost:${port}/rebound`);
    await gw.runJobs();
    expect(receiver.received).toHaveLength(0);
    const events = await gw.call('GET', `/events?paymentId=${paymentId}`, { apiKey: m.apiKey });
    const detail = await gw.call('GET', `/events/${events.body.data[0].id}`, { apiKey: m.apiKey });
    expect(detail.body.attempts).toEqual([
      expect.objectContaining({ statusCode: null, error: expect.objectContaining({ code: 'WH003' }) }),
    ]);
  });

  it('refuses an IP literal spelled in hex', async () => {
    const port = new URL(receiver.url).port;
    await payThenRetarget(`http://0x7f.1:${port}/hex`);
    await gw.runJobs();
    expect(receiver.received).toHaveLength(0);
  });
});
