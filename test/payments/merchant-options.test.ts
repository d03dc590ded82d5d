import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { CARDS, decideChallenge, h2hCard } from './fixtures.js';
import { dereference } from '../../proof/fuzz/contract.js';

/**
 * The merchant's options of a payment (docs/decisions.md "Merchant options of a payment"): set on the
 * payment request, or by the merchant's server (API key) when it pays; the payment's body wins over the
 * request, the request over the merchant's settings (notifyUrl).
 */
const gw = useGateway();
let m: TestMerchant;
let receiver: Receiver;
beforeAll(async () => {
  m = await gw.merchant();
  receiver = await startReceiver();
  const settings = await gw.call('PATCH', '/settings', {
    apiKey: m.apiKey,
    body: { notifyUrl: `${receiver.url}/default` },
  });
  expect(settings.status, settings.text).toBe(200);
});
afterAll(async () => receiver?.close());

async function request(options: Record<string, unknown> = {}) {
  const res = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 10.5, currency: 'EUR', reference: `o-${Math.random()}`, ...options },
  });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>;
}

async function pay(id: number, extra: Record<string, unknown> = {}, number: string = CARDS.visa) {
  const res = await gw.call('POST', `/payments/h2h/${id}`, {
    apiKey: m.apiKey,
    body: { ...h2hCard(number), ...extra },
  });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>;
}

async function deliver() {
  for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
}

/** The paths the payment's own events were delivered to. */
const deliveredTo = (paymentId: number) =>
  receiver.received
    .filter(
      (r) => (JSON.parse(r.body) as { data: { object: { paymentId?: number } } }).data.object.paymentId === paymentId,
    )
    .map((r) => r.path);

describe('POST /payment-requests takes the options its payments inherit', () => {
  it('answers them on creation and on GET', async () => {
    const options = {
      notifyUrl: `${receiver.url}/request`,
      successUrl: 'https://shop.example/paid?order=7',
      failureUrl: 'https://shop.example/failed',
      captureDelayHours: 3,
    };
    const created = await request(options);
    expect(created).toMatchObject(options);
    const read = await gw.call('GET', `/payment-requests/${created.paymentRequestId}`, { apiKey: m.apiKey });
    expect(read.body).toMatchObject(options);
    const document = (await gw.call('GET', '/openapi.json')).body;
    const body = dereference(
      document,
      document.paths['/payment-requests'].post.requestBody.content['application/json'].schema,
    );
    expect(Object.keys(body.properties ?? {})).toEqual(
      expect.arrayContaining(['notifyUrl', 'successUrl', 'failureUrl', 'captureDelayHours']),
    );
  });
});

describe('precedence: payment body > payment request > merchant settings', () => {
  it("captureDelayHours: the request's when the payment names none; the payment's otherwise", async () => {
    const inherited = await pay((await request({ captureDelayHours: 2 })).paymentRequestId);
    expect(inherited).toMatchObject({ status: 'authorized', captureDelayHours: 2 });
    const own = await pay((await request({ captureDelayHours: 2 })).paymentRequestId, { captureDelayHours: 0 });
    expect(own).toMatchObject({ status: 'succeeded', captureDelayHours: 0 });
  });

  it("notifyUrl: the payment's, else the request's, else the settings'; the API key still sets every option", async () => {
    const own = await pay(
      (await request({ notifyUrl: `${receiver.url}/request`, captureDelayHours: 5 })).paymentRequestId,
      {
        notifyUrl: `${receiver.url}/payment`,
        successUrl: 'https://shop.example/ok',
        failureUrl: 'https://shop.example/ko',
        captureDelayHours: 1,
        referenceId: 'server-ref',
        ipAddress: '198.51.100.20',
      },
    );
    expect(own).toMatchObject({ status: 'authorized', captureDelayHours: 1 });
    const { rows } = await sql<{ options: Record<string, unknown> }>`select options from payments
      where id = ${own.paymentId}`.execute(gw.db);
    expect(rows[0].options).toMatchObject({
      notifyUrl: `${receiver.url}/payment`,
      successUrl: 'https://shop.example/ok',
      failureUrl: 'https://shop.example/ko',
      referenceId: 'server-ref',
      ipAddress: '198.51.100.20',
      startedFrom: 'api',
    });
    const inherited = await pay((await request({ notifyUrl: `${receiver.url}/request` })).paymentRequestId, {
      notifyUrl: null,
    });
    const fallback = await pay((await request()).paymentRequestId);
    await deliver();
    expect(new Set(deliveredTo(own.paymentId))).toEqual(new Set(['/payment']));
    expect(new Set(deliveredTo(inherited.paymentId))).toEqual(new Set(['/request']));
    expect(new Set(deliveredTo(fallback.paymentId))).toEqual(new Set(['/default']));
  });

  it("an event about the payment request itself (its expiry) goes to the request's notifyUrl too", async () => {
    const inAMinute = new Date(gw.clock.now().getTime() + 60_000).toISOString();
    const own = await request({ notifyUrl: `${receiver.url}/expiring`, expiresAt: inAMinute });
    const plain = await request({ expiresAt: inAMinute });
    gw.clock.advance(60);
    await deliver();
    const expiredAt = (path: string) =>
      receiver
        .at(path)
        .map((r) => JSON.parse(r.body) as { type: string; data: { object: { paymentRequestId: number } } })
        .filter((event) => event.type === 'payment_request.expired')
        .map((event) => event.data.object.paymentRequestId);
    expect(expiredAt('/expiring')).toEqual([own.paymentRequestId]);
    expect(expiredAt('/default')).toContain(plain.paymentRequestId);
    expect(expiredAt('/default')).not.toContain(own.paymentRequestId);
  });

  it("successUrl / failureUrl: the payer comes back from 3-D Secure to the payment's, else the request's", async () => {
    const urls = { successUrl: 'https://shop.example/request-ok', failureUrl: 'https://shop.example/request-ko' };
    const inherited = await pay((await request(urls)).paymentRequestId, {}, CARDS.challengeApprove);
    const approved = await decideChallenge(gw, inherited.redirectUrl, 'approve');
    expect(approved.landing.status).toBe(303);
    expect(approved.landing.headers.get('location')).toMatch(/^https:\/\/shop\.example\/request-ok\?/);

    const denied = await decideChallenge(
      gw,
      (await pay((await request(urls)).paymentRequestId, {}, CARDS.challengeApprove)).redirectUrl,
      'deny',
    );
    expect(denied.landing.headers.get('location')).toMatch(/^https:\/\/shop\.example\/request-ko\?/);

    const own = await pay(
      (await request(urls)).paymentRequestId,
      { successUrl: 'https://shop.example/own' },
      CARDS.challengeApprove,
    );
    const ownLanding = await decideChallenge(gw, own.redirectUrl, 'approve');
    expect(ownLanding.landing.headers.get('location')).toMatch(/^https:\/\/shop\.example\/own\?/);
  });
});
