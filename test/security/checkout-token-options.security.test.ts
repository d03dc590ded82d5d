import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { mintToken } from '../payment-requests/fixtures.js';
import { CARDS, card, h2hCard, payer, walletPayment } from '../payments/fixtures.js';

/**
 * A checkout session token is the payer's credential: it pays, but never sets what is the merchant's
 * (docs/decisions.md "Merchant options of a payment"): where the merchant's signed notifications go,
 * where the payer's browser is sent, whether the sale is only authorized, the merchant's reference, the
 * payer's address. Those come from the payment request (and the merchant's settings), and the address
 * is the connection's, as the gateway sees it through TRUSTED_PROXIES (here: loopback, the test's proxy).
 */
const gw = useGateway({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
let m: TestMerchant;
let receiver: Receiver;
beforeAll(async () => {
  m = await gw.merchant();
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

/** What a payer would like to set, one field at a time. */
const MERCHANT_FIELDS: Array<[string, unknown]> = [
  ['notifyUrl', 'https://payer.example/steal-notifications'],
  ['successUrl', 'https://payer.example/ok'],
  ['failureUrl', 'https://payer.example/ko'],
  ['captureDelayHours', 7],
  ['referenceId', 'chosen-by-the-payer'],
  ['ipAddress', '198.51.100.77'],
];

const ALL = MERCHANT_FIELDS.map(([field]) => field);

/**
 * Every submission path a checkout token may use, with a body that would otherwise pay, and the merchant
 * fields the path has. The card per processor has no notifyUrl, successUrl, failureUrl or referenceId
 * (spec): sent anyway, they are unknown fields, ignored and named in X-Ignored-Fields, like any other.
 */
const SUBMISSIONS: Array<[string, (id: number) => string, Record<string, unknown>, string[]]> = [
  ['h2h card', (id) => `/payments/h2h/${id}`, h2hCard(CARDS.visa), ALL],
  ['h2h UPI', (id) => `/payments/h2h/${id}`, { ...payer, upiId: 'success@upi', amount: 10.5, unit: 'EUR' }, ALL],
  [
    'card per processor',
    (id) => `/payments/creditCard/acme/${id}`,
    card(CARDS.visa),
    ['captureDelayHours', 'ipAddress'],
  ],
  ['wallet', (id) => `/payments/wallet/${id}`, walletPayment('tok_options'), ALL],
];

async function requestWithToken(options: Record<string, unknown> = {}) {
  const created = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 10.5, currency: 'EUR', reference: `options-${Math.random()}`, ...options },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.paymentRequestId as number;
  return { id, token: await mintToken(gw, m.apiKey, id) };
}

async function expectNothingCreated(id: number) {
  const payments = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
  expect(payments.body.data).toEqual([]);
  expect((await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body.status).toBe('open');
}

const asPayer = (token: string, headers: Record<string, string> = {}) => ({
  headers: { 'x-checkout-token': token, ...headers },
});

/** Runs the queue until nothing more is due now. */
async function deliver() {
  for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
}

const eventsAt = (path: string) => receiver.at(path).map((r) => JSON.parse(r.body) as Record<string, any>);

describe("a checkout token never sets the merchant's options", () => {
  for (const [path, url, body, fields] of SUBMISSIONS) {
    for (const [field, value] of MERCHANT_FIELDS.filter(([name]) => fields.includes(name))) {
      it(`${path}: ${field} → 400 INVALID_FORMAT naming it; no payment`, async () => {
        const { id, token } = await requestWithToken();
        const res = await gw.call('POST', url(id), { ...asPayer(token), body: { ...body, [field]: value } });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', code: 'VAL002', details: { field } });
        expect(res.body.message ?? res.body.detail).toContain(field);
        await expectNothingCreated(id);
      });
    }
  }

  it('not even as null, and several at once are all named', async () => {
    const { id, token } = await requestWithToken();
    const alone = await gw.call('POST', `/payments/h2h/${id}`, {
      ...asPayer(token),
      body: { ...h2hCard(CARDS.visa), notifyUrl: null },
    });
    expect(alone.status, alone.text).toBe(400);
    expect(alone.body.details).toMatchObject({ field: 'notifyUrl' });
    const several = await gw.call('POST', `/payments/h2h/${id}`, {
      ...asPayer(token),
      body: { ...h2hCard(CARDS.visa), successUrl: 'https://payer.example/', captureDelayHours: 3 },
    });
    expect(several.status, several.text).toBe(400);
    expect(several.body.details).toMatchObject({ field: 'successUrl' });
    expect(several.body.message ?? several.body.detail).toContain('captureDelayHours');
    await expectNothingCreated(id);
  });

  it("the payment request's captureDelayHours applies to the checkout's payment: authorized now, captured later", async () => {
    const { id, token } = await requestWithToken({ captureDelayHours: 2 });
    const paid = await gw.call('POST', `/payments/h2h/${id}`, { ...asPayer(token), body: h2hCard(CARDS.visa) });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'authorized', captureDelayHours: 2, amountCaptured: 0 });
    expect(paid.body.captureAt).toBe(new Date(gw.clock.now().getTime() + 2 * 3600_000).toISOString());
  });

  it("the checkout payment's notifications, refunds included, go to the payment request's notifyUrl, not the default", async () => {
    const merchant = await gw.merchant();
    const settings = await gw.call('PATCH', '/settings', {
      apiKey: merchant.apiKey,
      body: { notifyUrl: `${receiver.url}/default` },
    });
    expect(settings.status, settings.text).toBe(200);
    const created = await gw.call('POST', '/payment-requests', {
      apiKey: merchant.apiKey,
      body: { amount: 10.5, currency: 'EUR', reference: 'hooked', notifyUrl: `${receiver.url}/this-request` },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.paymentRequestId as number;
    const token = await mintToken(gw, merchant.apiKey, id);
    const paid = await gw.call('POST', `/payments/h2h/${id}`, { ...asPayer(token), body: h2hCard(CARDS.visa) });
    expect(paid.status, paid.text).toBe(200);
    const refunded = await gw.call('POST', `/payments/${paid.body.paymentId}/refunds`, {
      apiKey: merchant.apiKey,
      body: { amount: 1 },
    });
    expect(refunded.status, refunded.text).toBe(200);
    await deliver();
    const types = eventsAt('/this-request')
      .filter((event) => event.data.object.paymentId === paid.body.paymentId)
      .map((event) => event.type);
    expect(types).toContain('payment.succeeded');
    expect(types.some((type) => type.startsWith('refund.'))).toBe(true);
    expect(eventsAt('/default').filter((event) => event.data.object.paymentId === paid.body.paymentId)).toEqual([]);
  });

  it("the address recorded for a checkout payment is the connection's (through the trusted proxy), never the body's", async () => {
    const { id, token } = await requestWithToken();
    const forwarded = { 'x-forwarded-for': '203.0.113.9' };
    const chosen = await gw.call('POST', `/payments/h2h/${id}`, {
      ...asPayer(token, forwarded),
      body: { ...h2hCard(CARDS.visa), ipAddress: '198.51.100.77' },
    });
    expect(chosen.status, chosen.text).toBe(400);
    expect(chosen.body.details).toMatchObject({ field: 'ipAddress' });
    const paid = await gw.call('POST', `/payments/h2h/${id}`, {
      ...asPayer(token, forwarded),
      body: h2hCard(CARDS.visa),
    });
    expect(paid.status, paid.text).toBe(200);
    const { rows } = await sql<{ ip: string }>`select options->>'ipAddress' as ip from payments
      where id = ${paid.body.paymentId}`.execute(gw.db);
    expect(rows[0].ip).toBe('203.0.113.9');
  });
});
