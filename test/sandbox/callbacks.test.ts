import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cardRequest, Receiver, SECRET, useHarness, until } from './harness.js';

const h = useHarness();

/** A globex payment (its outcome always comes by callback) with an optional X-Sandbox-Callback. */
async function globexPayment(number = '4242424242424242', mode?: string): Promise<string> {
  const res = await h.call(
    'POST',
    '/globex/v1/payments',
    cardRequest(number),
    mode ? { 'x-sandbox-callback': mode } : {},
  );
  expect(res.status).toBe(202);
  return res.body.id;
}

async function controlRecords(transactionId: string) {
  return (await h.call('GET', `/control/callbacks?transactionId=${transactionId}`)).body as any[];
}

describe('callback signing', () => {
  it('signs the exact raw body with lowercase hex HMAC-SHA512 in X-Webhook-Signature', async () => {
    const id = await globexPayment();
    const [callback] = await h.receiver.waitFor(id);
    expect(callback.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(callback.signature).toBe(createHmac('sha512', SECRET).update(Buffer.from(callback.raw)).digest('hex'));
    expect(callback.signatureValid).toBe(true);
    expect(Object.keys(callback.body)).toEqual([
      'eventId',
      'transactionId',
      'status',
      'amount',
      'currency',
      'timestamp',
      'providerData',
    ]);
  });
});

describe('X-Sandbox-Callback', () => {
  it('duplicate sends the outcome twice with the same eventId and body', async () => {
    const id = await globexPayment('4242424242424242', 'duplicate');
    const [first, second] = await h.receiver.waitFor(id, 2);
    expect(second.raw).toBe(first.raw);
    expect(second.body.eventId).toBe(first.body.eventId);
    expect(second.signatureValid).toBe(true);
  });

  it('late:<ms> holds the outcome back', async () => {
    const id = await globexPayment('4000000000000002', 'late:700');
    expect(h.receiver.for(id)).toHaveLength(0);
    expect(await controlRecords(id)).toEqual([]);
    const [callback] = await h.receiver.waitFor(id);
    expect(callback.body).toMatchObject({ status: 'failed', providerData: { declineCode: '05' } });
  });

  it('out-of-order sends the outcome, then a stale pending with an older timestamp', async () => {
    const id = await globexPayment('4242424242424242', 'out-of-order');
    const [outcome, stale] = await h.receiver.waitFor(id, 2);
    expect(outcome.body.status).toBe('success');
    expect(stale.body.status).toBe('pending');
    expect(stale.body.eventId).not.toBe(outcome.body.eventId);
    expect(Date.parse(stale.body.timestamp)).toBeLessThan(Date.parse(outcome.body.timestamp));
    expect(stale.signatureValid).toBe(true);
  });

  it('applies to the delayed acme callback of 4000000000000994 too', async () => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest('4000000000000994'), {
      'x-sandbox-callback': 'duplicate',
    });
    const [first, second] = await h.receiver.waitFor(res.body.id, 2);
    expect(first.path).toBe('/callbacks/svc');
    expect(second.body.eventId).toBe(first.body.eventId);
  });
});

describe('delivery', () => {
  it('retries with back-off when the gateway answers 500, with the same eventId and signature', async () => {
    h.receiver.failNext(500);
    const id = await globexPayment();
    const [failed, retried] = await h.receiver.waitFor(id, 2);
    expect(retried.raw).toBe(failed.raw);
    expect(retried.signature).toBe(failed.signature);
    await until(async () => (await controlRecords(id))[0]?.delivered === true);
    expect(await controlRecords(id)).toEqual([
      { path: '/callbacks/svc-gateway', body: failed.body, status: 200, attempts: 2, delivered: true },
    ]);
  });

  it('retries when nothing answers, and records the attempt without a status', async () => {
    const closed = new Receiver();
    await closed.start();
    await closed.close(); // a port nothing listens on any more
    h.sandbox.setGatewayUrl(closed.url);
    try {
      const id = await globexPayment();
      await until(async () => (await controlRecords(id))[0]?.attempts === 1);
      expect((await controlRecords(id))[0]).toMatchObject({ status: null, delivered: false });
      h.sandbox.setGatewayUrl(h.receiver.url);
      await h.receiver.waitFor(id);
      await until(async () => (await controlRecords(id))[0]?.delivered === true);
      expect((await controlRecords(id))[0]).toMatchObject({ status: 200, attempts: 2 });
    } finally {
      h.sandbox.setGatewayUrl(h.receiver.url);
    }
  });

  it('lists every callback sent under GET /control/callbacks', async () => {
    const id = await globexPayment('4000000000009995');
    const [callback] = await h.receiver.waitFor(id);
    await until(async () => (await controlRecords(id)).length === 1);
    const all = (await h.call('GET', '/control/callbacks')).body as any[];
    expect(all.find((record) => record.body.transactionId === id)).toEqual({
      path: '/callbacks/svc-gateway',
      body: callback.body,
      status: 200,
      attempts: 1,
      delivered: true,
    });
  });

  it('re-sends the last callback of a transaction on request, same eventId', async () => {
    const id = await globexPayment();
    const [original] = await h.receiver.waitFor(id);
    const resent = await h.call('POST', `/control/callbacks/${id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ path: '/callbacks/svc-gateway', status: 200, attempts: 1, delivered: true });
    const received = h.receiver.for(id);
    expect(received).toHaveLength(2);
    expect(received[1].raw).toBe(original.raw);
    expect(received[1].signatureValid).toBe(true);

    const unknown = await h.call('POST', '/control/callbacks/gbx_unknown/resend');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');
  });

  it('sends to the gateway URL set later with setGatewayUrl', async () => {
    const other = new Receiver();
    await other.start();
    try {
      h.sandbox.setGatewayUrl(other.url);
      const id = await globexPayment();
      const [callback] = await other.waitFor(id);
      expect(callback.signatureValid).toBe(true);
      expect(h.receiver.for(id)).toHaveLength(0);
    } finally {
      h.sandbox.setGatewayUrl(h.receiver.url);
      await other.close();
    }
  });
});
