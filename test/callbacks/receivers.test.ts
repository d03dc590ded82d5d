import { beforeAll, describe, expect, it } from 'vitest';
import { registerCallbackHandler, type CallbackEvent } from '../../src/modules/callbacks/dispatch.js';
import { CALLBACK_MAX_AGE_DAYS } from '../../src/modules/callbacks/routes.js';
import { useGateway } from '../helpers/gateway.js';
import { drainJobs, eventRows, postSigned, providerCallback } from './helpers.js';
import { dereference } from '../../proof/fuzz/contract.js';

/** Every event the test handlers saw, by source. */
const seen: CallbackEvent[] = [];
const gw = useGateway();
beforeAll(async () => {
  registerCallbackHandler(gw.gateway.app.ctx, 'svc', async (event) => {
    seen.push(event);
  });
  registerCallbackHandler(gw.gateway.app.ctx, '3ds', async (event) => {
    seen.push(event);
  });
});

const handled = (eventId: string) => seen.filter((e) => e.body.eventId === eventId);

describe('a verified provider callback', () => {
  it('is stored before the 200, then processed once by the registered handler', async () => {
    const body = providerCallback({ providerData: { reference: 'pay_42', declineCode: '05' } });
    const res = await postSigned(gw, '/callbacks/svc', body);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, eventId: body.eventId });
    // Persisted before the acknowledgement: the row is there the moment the answer arrives.
    const [row] = await eventRows(gw, 'svc', body.eventId as string);
    expect(row).toMatchObject({
      transaction_id: body.transactionId,
      status: 'success',
      payload: body,
      signature_valid: true,
      received_at: gw.clock.now(),
    });

    await drainJobs(gw);
    const [processed] = await eventRows(gw, 'svc', body.eventId as string);
    expect(processed.processed_at).toEqual(gw.clock.now());
    expect(processed.processing_error).toBeNull();
    expect(handled(body.eventId as string)).toHaveLength(1);
    expect(handled(body.eventId as string)[0]).toMatchObject({ id: row.id, source: 'svc', body });
  });

  it('with an eventId seen before is acknowledged as a duplicate and has no second effect', async () => {
    const body = providerCallback();
    const first = await postSigned(gw, '/callbacks/svc', body);
    await drainJobs(gw);
    const again = await postSigned(gw, '/callbacks/svc', body);
    // A re-send with the same eventId but changed content is still the same event.
    const altered = await postSigned(gw, '/callbacks/svc', { ...body, status: 'failed' });
    await drainJobs(gw);

    expect(first.body).toEqual({ received: true, eventId: body.eventId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ received: true, eventId: body.eventId, duplicate: true });
    expect(altered.body).toEqual({ received: true, eventId: body.eventId, duplicate: true });
    const rows = await eventRows(gw, 'svc', body.eventId as string);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('success');
    expect(handled(body.eventId as string)).toHaveLength(1);
  });

  it('is the same event on every receiver: a replay on another one is a duplicate and changes nothing', async () => {
    const body = providerCallback({ status: 'refunded' });
    await postSigned(gw, '/callbacks/svc', body);
    await drainJobs(gw);
    for (const receiver of ['svc-gateway', 'svcwh', '3ds']) {
      const replay = await postSigned(gw, `/callbacks/${receiver}`, {
        ...body,
        ...(receiver === '3ds' ? { threeDsResult: 'Y' } : {}),
      });
      expect(replay.status, replay.text).toBe(200);
      expect(replay.body).toEqual({ received: true, eventId: body.eventId, duplicate: true });
      expect(await eventRows(gw, receiver, body.eventId as string)).toEqual([]);
    }
    await drainJobs(gw);
    expect(handled(body.eventId as string)).toHaveLength(1);
  });

  it(`refuses an event whose timestamp is more than ${CALLBACK_MAX_AGE_DAYS} days old, and stores nothing`, async () => {
    const now = gw.clock.now().getTime();
    const day = 24 * 60 * 60 * 1000;
    for (const timestamp of [
      '2020-01-01T00:00:00Z',
      new Date(now - CALLBACK_MAX_AGE_DAYS * day - 1000).toISOString(),
    ]) {
      const body = providerCallback({ timestamp });
      const res = await postSigned(gw, '/callbacks/svc', body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'timestamp', value: timestamp } });
      expect(await eventRows(gw, 'svc', body.eventId as string)).toEqual([]);
    }
    // Just inside the window, and ahead of our clock (only the processor can sign one), are received.
    for (const timestamp of [
      new Date(now - CALLBACK_MAX_AGE_DAYS * day + 60_000).toISOString(),
      new Date(now + day).toISOString(),
    ]) {
      const res = await postSigned(gw, '/callbacks/svc', providerCallback({ timestamp }));
      expect(res.status, res.text).toBe(200);
    }
  });

  it('keeps members the schema does not name in the stored payload and names them in X-Ignored-Fields', async () => {
    const body = providerCallback({ acquirerRef: 'X-1', providerData: { reference: 'pay_1', arn: '74537' } });
    const res = await postSigned(gw, '/callbacks/svc', body);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('acquirerRef');
    const [row] = await eventRows(gw, 'svc', body.eventId as string);
    expect(row.payload).toEqual(body);
  });

  it('is served under /v2 as well', async () => {
    const body = providerCallback();
    const res = await postSigned(gw, '/v2/callbacks/svc', body);
    expect(res.status).toBe(200);
    expect(await eventRows(gw, 'svc', body.eventId as string)).toHaveLength(1);
  });

  it('is logged with its identifiers', async () => {
    const body = providerCallback();
    const res = await postSigned(gw, '/callbacks/svc-gateway', body);
    expect(res.status, res.text).toBe(200);
    const lines = gw.logs().split('\n');
    const line = lines.find((l) => l.includes('callback received') && l.includes(body.eventId as string));
    expect(line, lines.slice(-5).join('\n')).toBeDefined();
    expect(JSON.parse(line!).callback).toMatchObject({
      source: 'svc-gateway',
      transactionId: body.transactionId,
      status: 'success',
      duplicate: false,
    });
  });
});

describe('processing', () => {
  it('marks an event processed with a note when no handler is registered for its receiver', async () => {
    const body = providerCallback({ status: 'chargeback' });
    await postSigned(gw, '/callbacks/svcwh', body);
    await drainJobs(gw);
    const [row] = await eventRows(gw, 'svcwh', body.eventId as string);
    expect(row.processed_at).not.toBeNull();
    expect(row.processing_error).toMatch(/no handler registered for \/callbacks\/svcwh/);
  });

  it('retries a handler that failed, and its effects commit only with the successful run', async () => {
    const body = providerCallback();
    let calls = 0;
    const unregister = registerCallbackHandler(gw.gateway.app.ctx, 'svc-gateway', async (event, trx) => {
      if (event.body.eventId !== body.eventId) return;
      calls += 1;
      // A write in the handler's transaction: it must not survive the failed attempt.
      await trx
        .updateTable('callback_events')
        .set({ status: `seen-${calls}` })
        .where('id', '=', event.id)
        .execute();
      if (calls === 1) throw new Error('processor lookup timed out');
    });
    try {
      await postSigned(gw, '/callbacks/svc-gateway', body);
      await drainJobs(gw);
      const [failed] = await eventRows(gw, 'svc-gateway', body.eventId as string);
      expect(failed.processed_at).toBeNull();
      expect(failed.processing_error).toBe('processor lookup timed out');
      expect(failed.status).toBe('success');

      gw.clock.advance(60);
      await drainJobs(gw);
      const [done] = await eventRows(gw, 'svc-gateway', body.eventId as string);
      expect(calls).toBe(2);
      expect(done.processed_at).not.toBeNull();
      expect(done.processing_error).toBeNull();
      expect(done.status).toBe('seen-2');
    } finally {
      unregister();
    }
  });

  it('stores and acknowledges a status it does not know, logs it, and does not hand it to the handler', async () => {
    for (const status of ['disputed', 'chargeback']) {
      const body = providerCallback({ status });
      const res = await postSigned(gw, '/callbacks/svc', body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, eventId: body.eventId });
      await drainJobs(gw);
      const [row] = await eventRows(gw, 'svc', body.eventId as string);
      expect(row.status).toBe(status);
      expect(row.processed_at).not.toBeNull();
      expect(row.processing_error).toMatch(new RegExp(`status "${status}" is not one /callbacks/svc processes`));
      expect(handled(body.eventId as string)).toHaveLength(0);
      expect(gw.logs()).toMatch(new RegExp(`"status":"${status}"[^\\n]*callback status not processed`));
    }
  });
});

describe('3-D Secure results', () => {
  const threeDs = (overrides: Record<string, unknown> = {}) =>
    providerCallback({
      threeDsResult: 'Y',
      eci: '05',
      authenticationValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=',
      ...overrides,
    });

  it('are stored and shown with the authentication value redacted, and handed to the 3ds handler whole', async () => {
    const body = threeDs();
    const res = await postSigned(gw, '/callbacks/3ds', body);
    expect(res.status).toBe(200);
    await drainJobs(gw);
    const [row] = await eventRows(gw, '3ds', body.eventId as string);
    expect(row.payload).toEqual({ ...body, authenticationValue: '[redacted]' });
    expect(row.raw_body).not.toContain(body.authenticationValue);
    expect(row.sealed_secrets).not.toContain(body.authenticationValue);
    expect(handled(body.eventId as string)[0]).toMatchObject({
      source: '3ds',
      body: { threeDsResult: 'Y', eci: '05', authenticationValue: body.authenticationValue },
    });
    // Card-holder authentication data: stored for the payment (encrypted), never logged.
    expect(gw.logs()).not.toContain(body.authenticationValue);
  });

  it('accept a failed authentication without ECI or authentication value', async () => {
    const body = threeDs({ status: 'failed', threeDsResult: 'N', eci: undefined, authenticationValue: undefined });
    const res = await postSigned(gw, '/callbacks/3ds', body);
    expect(res.status).toBe(200);
  });

  it('refuse a result code outside Y N A U R', async () => {
    const res = await postSigned(gw, '/callbacks/3ds', threeDs({ threeDsResult: 'X' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', code: 'VAL002', details: { field: 'threeDsResult' } });
    expect(res.body.message).toContain('Y, N, A, U, R');
  });

  it('require the result code', async () => {
    const res = await postSigned(gw, '/callbacks/3ds', providerCallback());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: { missingFields: ['threeDsResult'] } });
  });
});

describe('a signed callback that is not well-formed', () => {
  it('missing fields answers 400 VALIDATION_ERROR naming all of them, in the error-guide shape, and stores nothing', async () => {
    const body = providerCallback();
    delete body.transactionId;
    delete body.amount;
    const res = await postSigned(gw, '/callbacks/svc', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      code: 'VAL001',
      details: { missingFields: ['transactionId', 'amount'] },
    });
    expect(res.body.timestamp).toBeDefined();
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    expect(await eventRows(gw, 'svc', body.eventId as string)).toHaveLength(0);
  });

  it.each([
    ['a negative amount', { amount: -1 }, 'amount'],
    ['an amount as a string', { amount: '1050' }, 'amount'],
    ['a fractional amount', { amount: 10.5 }, 'amount'],
    ['a lower-case currency', { currency: 'eur' }, 'currency'],
    ['a timestamp that is not a date-time', { timestamp: 'yesterday' }, 'timestamp'],
    ['providerData that is not an object', { providerData: 'pay_1' }, 'providerData'],
    ['an empty status', { status: '' }, 'status'],
  ])('with %s answers 400 INVALID_FORMAT', async (_name, overrides, field) => {
    const res = await postSigned(gw, '/callbacks/svc', providerCallback(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field } });
  });

  it('accepts an amount of zero', async () => {
    const res = await postSigned(gw, '/callbacks/svcwh', providerCallback({ amount: 0, status: 'refunded' }));
    expect(res.status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('describes the four provider receivers and the three test endpoints', async () => {
    const res = await gw.call('GET', '/openapi.json');
    for (const path of [
      '/callbacks/svc',
      '/callbacks/svc-gateway',
      '/callbacks/svcwh',
      '/callbacks/3ds',
      '/callbacks/test/json',
      '/callbacks/test/form',
    ]) {
      expect(res.body.paths[path].post.summary).toBeTruthy();
    }
    expect(res.body.paths['/callbacks/test/text'].get.summary).toBeTruthy();
    expect(
      dereference(res.body, res.body.paths['/callbacks/3ds'].post.requestBody.content['application/json'].schema)
        .required,
    ).toContain('threeDsResult');
  });
});
