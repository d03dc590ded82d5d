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

describe('a refund the processor did not answer', () => {
  /** The processor's own record of the payment: what it actually refunded. */
  const atProcessor = async (paymentId: number) =>
    (await (await fetch(`${gw.gateway.sandbox!.url}/acme/v1/payments?reference=pay_${paymentId}`)).json()) as {
      amountRefunded: number;
      status: string;
    };
  const refundRows = (paymentId: number) =>
    gw.db.selectFrom('refunds').select(['id', 'status']).where('payment_id', '=', paymentId).execute();
  const refundEvents = (refundId: number) =>
    gw.db
      .selectFrom('outbox_events')
      .select('type')
      .where('object_id', '=', refundId)
      .where('type', 'like', 'refund.%')
      .execute();

  it('answers pending with the amount reserved; the sweep asks again after 60 s and it succeeds, refunded once', async () => {
    const { id, payment } = await pay({}, 'acme', undefined, 40);
    const res = await gw.call('POST', `/payments/${payment.paymentId}/refunds`, {
      apiKey: m.apiKey,
      body: { amount: 15 },
      headers: { 'X-Sandbox-Hang-Ms': '1500' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', amount: 15 });
    // Reserved: no second refund can take the same money meanwhile.
    expect((await get(`/payments/${payment.paymentId}`)).amountRefunded).toBe(15);
    expect((await post(`/payments/${payment.paymentId}/refunds`, { amount: 25.01 })).status).toBe(400);

    gw.clock.advance(59);
    await gw.runJobs();
    expect(await refundRows(payment.paymentId)).toEqual([{ id: res.body.refundId, status: 'pending' }]);
    gw.clock.advance(2);
    await gw.runJobs();
    expect(await refundRows(payment.paymentId)).toEqual([{ id: res.body.refundId, status: 'succeeded' }]);
    expect(await refundEvents(res.body.refundId)).toEqual([{ type: 'refund.succeeded' }]);
    expect(await get(`/payment-requests/${id}`)).toMatchObject({ status: 'partially_refunded', amountRefunded: 15 });
    expect(await atProcessor(payment.paymentId)).toMatchObject({ amountRefunded: 1500, status: 'partially_refunded' });
  });

  it('a retry with the same idempotency key replays the pending answer and reserves nothing more', async () => {
    const { payment } = await pay({}, 'acme', undefined, 20);
    const key = { 'X-Idempotency-Key': `refund-${payment.paymentId}` };
    const first = await gw.call('POST', `/payments/${payment.paymentId}/refunds`, {
      apiKey: m.apiKey,
      body: { amount: 5 },
      headers: { ...key, 'X-Sandbox-Hang-Ms': '1500' },
    });
    expect(first.body).toMatchObject({ status: 'pending' });
    const retried = await gw.call('POST', `/payments/${payment.paymentId}/refunds`, {
      apiKey: m.apiKey,
      body: { amount: 5 },
      headers: key,
    });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(first.text);
    expect((await get(`/payments/${payment.paymentId}`)).amountRefunded).toBe(5);
    gw.clock.advance(61);
    await gw.runJobs();
    expect(await refundRows(payment.paymentId)).toEqual([{ id: first.body.refundId, status: 'succeeded' }]);
    expect(await atProcessor(payment.paymentId)).toMatchObject({ amountRefunded: 500 });
  });

  it('a refund the processor refuses fails and gives its reservation back', async () => {
    const { payment } = await pay({}, 'acme', undefined, 12);
    // Refunded at the processor behind the gateway's back: the gateway's refund is now more than is left there.
    const outside = await fetch(`${gw.gateway.sandbox!.url}/acme/v1/payments/${payment.transactionId}/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1200, reference: 'outside' }),
    });
    expect(outside.status).toBe(200);
    const res = await post(`/payments/${payment.paymentId}/refunds`, { amount: 2 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', amount: 2 });
    expect((await get(`/payments/${payment.paymentId}`)).amountRefunded).toBe(0);
    expect(await refundEvents(res.body.refundId)).toEqual([{ type: 'refund.failed' }]);
    // The audit log keeps the refund the merchant asked for and the gateway accepted, refused or not.
    const audited = await gw.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'request_id'])
      .where('merchant_id', '=', m.merchantId)
      .where('target', '=', `/payments/${payment.paymentId}/refunds`)
      .execute();
    expect(audited).toEqual([
      {
        action: 'payment.refunded',
        target: `/payments/${payment.paymentId}/refunds`,
        request_id: res.headers.get('x-request-id'),
      },
    ]);
    gw.clock.advance(120);
    await gw.runJobs();
    expect(await refundRows(payment.paymentId)).toEqual([{ id: res.body.refundId, status: 'failed' }]);
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
