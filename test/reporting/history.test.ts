import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { postSigned, providerCallback } from '../callbacks/helpers.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { card, CARDS, createRequest, waitForStatus } from '../payments/fixtures.js';

/** A payment request's timeline and the developers area's received callbacks (docs/reporting.md). */
const gw = useGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
let receiver: Receiver;
let m: TestMerchant;
let other: TestMerchant;
let requestId: number;
let paymentId: number;
let transactionId: string;

async function deliver() {
  for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
}

beforeAll(async () => {
  receiver = await startReceiver();
  // The first delivery attempt fails, the retry succeeds: both are on the timeline.
  receiver.answers.push({ status: 500 });
  m = await gw.merchant();
  other = await gw.merchant();
  const patched = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/m` } });
  expect(patched.status, patched.text).toBe(200);
  requestId = await createRequest(gw, m);
  gw.clock.advance(1);
  // Answered later: the processor's callback settles it.
  const pay = await gw.call('POST', `/payments/creditCard/acme/${requestId}`, {
    apiKey: m.apiKey,
    body: card(CARDS.answersLater),
  });
  expect(pay.body.status, pay.text).toBe('pending');
  paymentId = pay.body.paymentId;
  transactionId = pay.body.transactionId;
  expect((await waitForStatus(gw, m, paymentId, 'pending')).status).toBe('succeeded');
  gw.clock.advance(1);
  await deliver();
  gw.clock.advance(3600);
  await deliver();
  gw.clock.advance(1);
  const refund = await gw.call('POST', `/payments/${paymentId}/refunds`, { apiKey: m.apiKey, body: { amount: 1 } });
  expect(refund.status, refund.text).toBe(200);
  gw.clock.advance(1);
  await deliver();
});
afterAll(async () => receiver?.close());

describe('GET /payment-requests/{id}/timeline', () => {
  it('has creation, the callback, every state change and every delivery attempt, oldest first', async () => {
    const res = await gw.call('GET', `/payment-requests/${requestId}/timeline`, { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ paymentRequestId: requestId, status: 'partially_refunded' });
    const entries = res.body.entries as any[];
    const summary = entries.map((e) =>
      e.kind === 'event' ? `event ${e.type}` : e.kind === 'notification_attempt' ? `attempt ${e.statusCode}` : e.kind,
    );
    expect(summary).toEqual([
      'created',
      'callback',
      'event payment.succeeded',
      'attempt 500',
      'attempt 200',
      'event refund.succeeded',
      'attempt 200',
    ]);
    expect(entries[0]).toMatchObject({ amount: 10.5, currency: 'EUR' });
    expect(entries[1].callback).toMatchObject({
      source: 'svc',
      transactionId,
      signatureValid: true,
      status: 'success',
    });
    expect(entries[1].callback.processedAt).not.toBeNull();
    expect(entries[3]).toMatchObject({ url: `${receiver.url}/m`, eventId: entries[2].eventId });
    const times = entries.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it('is another merchant’s or mode’s 404, and a bad id a 400', async () => {
    const foreign = await gw.call('GET', `/payment-requests/${requestId}/timeline`, { apiKey: other.apiKey });
    expectErrorGuide(foreign, 'NOT_FOUND');
    expectErrorGuide(await gw.call('GET', '/payment-requests/x/timeline', { apiKey: m.apiKey }), 'INVALID_FORMAT');
  });
});

describe('GET /callback-events', () => {
  it('lists the provider callbacks about the merchant’s payments and its signed test calls, newest first', async () => {
    const signed = await postSigned(
      gw,
      '/callbacks/test/json',
      { eventId: 'mine-signed' },
      {
        headers: { 'x-api-key': m.apiKey },
      },
    );
    expect(signed.body).toMatchObject({ signatureValid: true });
    await postSigned(
      gw,
      '/callbacks/test/json',
      { eventId: 'mine-forged' },
      {
        signature: 'ab'.repeat(64),
        headers: { 'x-api-key': m.apiKey },
      },
    );
    await gw.call('POST', '/callbacks/test/json', { body: { eventId: 'anonymous' } });
    await gw.call('POST', '/callbacks/test/json', { body: { eventId: 'bad-key' }, headers: { 'x-api-key': 'nope' } });
    await gw.call('POST', '/callbacks/test/json', { body: { eventId: 'others' }, apiKey: other.apiKey });
    // A provider callback about a transaction that is no payment of this merchant.
    await postSigned(gw, '/callbacks/svc', providerCallback({ eventId: 'stranger' }));

    const res = await gw.call('GET', '/callback-events', { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((c: any) => [c.source, c.eventId ?? c.transactionId, c.signatureValid])).toEqual([
      ['test/json', 'mine-forged', false],
      ['test/json', 'mine-signed', true],
      ['svc', expect.any(String), true],
    ]);
    expect(res.body.data[2]).toMatchObject({ transactionId, payload: { transactionId, status: 'success' } });
    expect(res.body.data[1].payload).toEqual({ eventId: 'mine-signed' });

    const paged = await gw.call('GET', '/callback-events?limit=1&source=test/json', { apiKey: m.apiKey });
    expect(paged.body.data.map((c: any) => c.eventId)).toEqual(['mine-forged']);
    const next = await gw.call('GET', `/callback-events?limit=1&source=test/json&cursor=${paged.body.nextCursor}`, {
      apiKey: m.apiKey,
    });
    expect(next.body.data.map((c: any) => c.eventId)).toEqual(['mine-signed']);

    const theirs = await gw.call('GET', '/callback-events', { apiKey: other.apiKey });
    expect(theirs.body.data.map((c: any) => c.eventId)).toEqual(['others']);
    const live = await gw.merchant({ mode: 'live' });
    expect((await gw.call('GET', '/callback-events', { apiKey: live.apiKey })).body.data).toEqual([]);
  });

  it('refuses an unknown source and a bad cursor (400)', async () => {
    expectErrorGuide(await gw.call('GET', '/callback-events?source=svc2', { apiKey: m.apiKey }), 'INVALID_FORMAT');
    expectErrorGuide(await gw.call('GET', '/callback-events?cursor=x', { apiKey: m.apiKey }), 'INVALID_FORMAT');
  });
});
