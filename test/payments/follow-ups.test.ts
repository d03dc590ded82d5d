import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest, waitForStatus } from './fixtures.js';

let m: TestMerchant;
const gw = useGateway({ env: { PROCESSOR_TIMEOUT_MS: '300' } });
beforeAll(async () => {
  // A short processor time-out so the hang control below exercises the time-out path quickly.
  m = await gw.merchant();
});

async function pay(
  extra: Record<string, unknown> = {},
  processor = 'acme',
  headers?: Record<string, string>,
  amount = 10.5,
) {
  const id = await createRequest(gw, m, amount);
  const res = await gw.call('POST', `/payments/creditCard/${processor}/${id}`, {
    apiKey: m.apiKey,
    body: { ...card(CARDS.visa), ...extra },
    headers,
  });
  expect(res.status, res.text).toBe(200);
  return { id, payment: res.body };
}

const get = async (path: string) => (await gw.call('GET', path, { apiKey: m.apiKey })).body;
const post = (path: string, body?: unknown) => gw.call('POST', path, { apiKey: m.apiKey, body });

describe('delayed capture', () => {
  it('captureDelayHours 2: authorized now, captured by the scheduled job after two hours', async () => {
    const { id, payment } = await pay({ captureDelayHours: 2 });
    expect(payment).toMatchObject({ status: 'authorized', amountCaptured: 0, captureDelayHours: 2 });
    expect(new Date(payment.captureAt).getTime() - gw.clock.now().getTime()).toBe(2 * 3600_000);
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'authorized' });

    gw.clock.advance(3600);
    await gw.runJobs();
    expect((await get(`/payments/${payment.paymentId}`)).status).toBe('authorized');

    gw.clock.advance(3601);
    await gw.runJobs();
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'paid', amountPaid: 10.5 });
  });

  it('an asynchronous approval (globex callback "success") of a delayed capture authorizes, then the job captures', async () => {
    // The outcome comes by callback once the answer is out; held back a moment, so that on a busy
    // machine the callback cannot be processed before the submission has read its own answer.
    const { id, payment } = await pay({ captureDelayHours: 1 }, 'globex', { 'x-sandbox-callback': 'late:300' });
    expect(payment.status).toBe('pending');
    const authorized = await waitForStatus(gw, m, payment.paymentId, 'pending');
    expect(authorized).toMatchObject({ status: 'authorized', amountCaptured: 0 });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'authorized' });
    gw.clock.advance(3601);
    await gw.runJobs();
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'paid' });
  });

  it('early capture captures at once; the scheduled job then does nothing', async () => {
    const { payment } = await pay({ captureDelayHours: 7 });
    const captured = await post(`/payments/${payment.paymentId}/capture`);
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
    gw.clock.advance(8 * 3600);
    await gw.runJobs();
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
  });

  it('void while authorized: canceled, the request opens again, the job never captures', async () => {
    const { id, payment } = await pay({ captureDelayHours: 1 });
    const voided = await post(`/payments/${payment.paymentId}/cancel`);
    expect(voided.body).toMatchObject({ status: 'canceled' });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'open' });
    gw.clock.advance(2 * 3600);
    await gw.runJobs();
    expect((await get(`/payments/${payment.paymentId}`)).status).toBe('canceled');
  });

  it('capture or void of a payment that is not authorized → 409', async () => {
    const { payment } = await pay();
    expect((await post(`/payments/${payment.paymentId}/cancel`)).status).toBe(409);
    const voided = await pay({ captureDelayHours: 1 });
    await post(`/payments/${voided.payment.paymentId}/cancel`);
    const capture = await post(`/payments/${voided.payment.paymentId}/capture`);
    expect(capture.status).toBe(409);
    expect(capture.body).toMatchObject({ error: 'CONFLICT', status: 409 });
  });
});

describe('refunds', () => {
  it('partial then full refund: each its own record; totals on payment and request', async () => {
    const { id, payment } = await pay({}, 'acme', undefined, 100);
    const first = await post(`/payments/${payment.paymentId}/refunds`, { amount: 30.25, reason: 'damaged' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      paymentId: payment.paymentId,
      amount: 30.25,
      currency: 'EUR',
      status: 'succeeded',
      reason: 'damaged',
    });
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'succeeded', amountRefunded: 30.25 });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'partially_refunded', amountRefunded: 30.25 });

    const rest = await post(`/payments/${payment.paymentId}/refunds`, {});
    expect(rest.body).toMatchObject({ amount: 69.75, status: 'succeeded' });
    expect(rest.body.refundId).not.toBe(first.body.refundId);
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'succeeded', amountRefunded: 100 });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'refunded', amountRefunded: 100 });
  });

  it('over-refund is rejected and changes nothing', async () => {
    const { payment } = await pay();
    const over = await post(`/payments/${payment.paymentId}/refunds`, { amount: 10.51 });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'amount' } });
    expect((await get(`/payments/${payment.paymentId}`)).amountRefunded).toBe(0);
    const decimals = await post(`/payments/${payment.paymentId}/refunds`, { amount: 1.001 });
    expect(decimals.status).toBe(400);
  });

  it('concurrent refunds never exceed what was captured', async () => {
    const { payment } = await pay();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post(`/payments/${payment.paymentId}/refunds`, { amount: 4 })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 400)).toHaveLength(3);
    expect((await get(`/payments/${payment.paymentId}`)).amountRefunded).toBe(8);
  });

  it('only a succeeded payment can be refunded', async () => {
    const { payment } = await pay({ captureDelayHours: 1 });
    expect((await post(`/payments/${payment.paymentId}/refunds`, {})).status).toBe(409);
  });
});

describe('a processor that does not answer in time', () => {
  it('leaves the payment pending; the reconciliation sweep settles it from the processor status after 60 s', async () => {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
      apiKey: m.apiKey,
      body: card(CARDS.visa),
      headers: { 'X-Sandbox-Hang-Ms': '1500' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', transactionId: null });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'processing' });
    // Another submission while pending is refused: never charged twice.
    expect(
      (await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) })).status,
    ).toBe(409);

    gw.clock.advance(59);
    await gw.runJobs();
    expect((await get(`/payments/${res.body.paymentId}`)).status).toBe('pending');
    gw.clock.advance(2);
    await gw.runJobs();
    expect(await get(`/payments/${res.body.paymentId}`)).toMatchObject({
      status: 'succeeded',
      transactionId: expect.stringMatching(/^acme_/),
    });
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'paid' });
  });
});

describe('globex callbacks: duplicate, late, out of order', () => {
  it('a duplicate callback has no second effect', async () => {
    const { id, payment } = await pay({}, 'globex', { 'X-Sandbox-Callback': 'duplicate' });
    const settled = await waitForStatus(gw, m, payment.paymentId, 'pending');
    expect(settled.status).toBe('succeeded');
    const events = await gw.db
      .selectFrom('outbox_events')
      .select('type')
      .where('object_id', '=', payment.paymentId)
      .where('type', 'like', 'payment.%')
      .execute();
    expect(events).toEqual([{ type: 'payment.succeeded' }]);
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'paid', amountPaid: 10.5 });
  });

  it('a stale pending callback after success never moves the payment backwards', async () => {
    const { payment } = await pay({}, 'globex', { 'X-Sandbox-Callback': 'out-of-order' });
    const settled = await waitForStatus(gw, m, payment.paymentId, 'pending');
    expect(settled.status).toBe('succeeded');
    // Wait until the sandbox has delivered both callbacks, then check nothing moved.
    const started = Date.now();
    while (Date.now() - started < 5000) {
      const delivered = await gw.db
        .selectFrom('callback_events')
        .select('status')
        .where('transaction_id', '=', settled.transactionId)
        .execute();
      if (delivered.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await gw.runJobs();
    expect((await get(`/payments/${payment.paymentId}`)).status).toBe('succeeded');
  });

  it('a late callback still settles the payment', async () => {
    const { payment } = await pay({}, 'globex', { 'X-Sandbox-Callback': 'late:400' });
    expect(payment.status).toBe('pending');
    const settled = await waitForStatus(gw, m, payment.paymentId, 'pending');
    expect(settled.status).toBe('succeeded');
  });
});

// Last in this file: it stops the sandbox network.
describe('a processor that is down during a follow-up', () => {
  it('capture and void answer 502 and leave the payment authorized, to be retried', async () => {
    const { payment } = await pay({ captureDelayHours: 3 });
    await gw.gateway.sandbox!.close();
    for (const action of ['capture', 'cancel']) {
      const res = await post(`/payments/${payment.paymentId}/${action}`);
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ error: 'PROCESSOR_UNAVAILABLE', paymentId: payment.paymentId });
    }
    expect(await get(`/payments/${payment.paymentId}`)).toMatchObject({ status: 'authorized', amountCaptured: 0 });
    const refund = await gw.call('POST', `/payments/${payment.paymentId}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(refund.status).toBe(409);
  });
});
