import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARD } from './routes.js';

/**
 * Attacks on the signed processor callbacks beyond malformed signatures (those are in
 * test/callbacks/signature.security.test.ts): a captured genuine callback replayed as is, altered,
 * or re-labelled; duplicated signature headers; and bodies signed exactly as sent that are not text.
 */
let gw: TestGateway;
let m: TestMerchant;
beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.merchant();
});
afterAll(async () => gw?.close());

const sign = (raw: string | Buffer) =>
  createHmac('sha512', gw.gateway.app.ctx.secrets.callbackSigningSecret).update(raw).digest('hex');
const post = (path: string, raw: string | Buffer, signature: string | string[]) =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: [
      ['content-type', 'application/json'],
      ...[signature].flat().map((s): [string, string] => ['x-webhook-signature', s]),
    ],
    body: raw as BodyInit,
  }).then(async (res) => ({ status: res.status, body: await res.json().catch(() => undefined) }));
const eventCount = async () =>
  Number(
    (
      await gw.db
        .selectFrom('callback_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function settledGlobexPayment(): Promise<{ paymentId: number; path: string; raw: string; signature: string }> {
  const created = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 10.5, currency: 'EUR', reference: 'replay' },
  });
  // globex sends its callback the moment its 202 is out; held back 300 ms, as the other globex tests do, so
  // the callback cannot settle the payment before the gateway has recorded it pending (it did once, on a
  // fast machine, and the answer was then the outcome).
  const pay = await gw.call('POST', `/payments/creditCard/globex/${created.body.paymentRequestId}`, {
    apiKey: m.apiKey,
    body: CARD,
    headers: { 'X-Sandbox-Callback': 'late:300' },
  });
  expect(pay.body.status, pay.text).toBe('pending');
  const deadline = Date.now() + 10_000;
  let payment = pay.body;
  while (payment.status === 'pending' && Date.now() < deadline) {
    await gw.runJobs();
    await new Promise((wake) => setTimeout(wake, 50));
    payment = (await gw.call('GET', `/payments/${pay.body.paymentId}`, { apiKey: m.apiKey })).body;
  }
  expect(payment.status).toBe('succeeded');
  // What an eavesdropper on the processor's connection captured: the exact bytes and their signature.
  const records = await fetch(
    `${gw.gateway.sandbox!.url}/control/callbacks?transactionId=${pay.body.transactionId}`,
  ).then((res) => res.json());
  const last = records[records.length - 1];
  const raw = JSON.stringify(last.body);
  return { paymentId: pay.body.paymentId, path: last.path, raw, signature: sign(raw) };
}

it('a captured genuine callback replayed as is is acknowledged as a duplicate and has no second effect', async () => {
  const { paymentId, path, raw, signature } = await settledGlobexPayment();
  const before = await eventCount();
  for (let i = 0; i < 3; i++) {
    const res = await post(path, raw, signature);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ duplicate: true });
  }
  await gw.runJobs();
  expect(await eventCount()).toBe(before);
  expect((await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body).toMatchObject({
    status: 'succeeded',
    amountRefunded: 0,
  });
});

it('a captured callback altered or re-labelled under its old signature is refused with 401 and stores nothing', async () => {
  const { paymentId, raw, signature } = await settledGlobexPayment();
  const event = JSON.parse(raw);
  const before = await eventCount();
  const altered = [
    { ...event, status: 'refunded' },
    { ...event, status: 'chargeback' },
    { ...event, eventId: `${event.eventId}-2` },
    { ...event, amount: event.amount * 100 },
    { ...event, providerData: { ...event.providerData, reference: 'pay_1' } },
  ];
  for (const body of altered) {
    for (const path of ['/callbacks/svc', '/callbacks/svcwh']) {
      const res = await post(path, JSON.stringify(body), signature);
      expect([res.status, res.body?.code], `${path} ${JSON.stringify(body)}`).toEqual([401, 'WH001']);
    }
  }
  expect(await eventCount()).toBe(before);
  expect((await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body).toMatchObject({
    status: 'succeeded',
    amountRefunded: 0,
  });
});

it('two signature headers, one of them right, are refused (no "any of them matches")', async () => {
  const raw = JSON.stringify({
    eventId: 'evt-two-headers',
    transactionId: 'acme_x',
    status: 'failed',
    amount: 1,
    currency: 'EUR',
    timestamp: '2026-03-01T12:00:00.000Z',
    providerData: {},
  });
  const before = await eventCount();
  for (const headers of [
    [sign(raw), '0'.repeat(128)],
    ['0'.repeat(128), sign(raw)],
  ]) {
    const res = await post('/callbacks/svc', raw, headers);
    expect([res.status, res.body?.code]).toEqual([401, 'WH001']);
  }
  expect(await eventCount()).toBe(before);
});

it('a body signed over its exact bytes that is not UTF-8 text is a malformed body (400), not a signature failure', async () => {
  const raw = Buffer.concat([Buffer.from('{"eventId":"evt-'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
  const res = await post('/callbacks/svc', raw, sign(raw));
  expect(res.status, JSON.stringify(res.body)).toBe(400);
});
