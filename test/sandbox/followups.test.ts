import { describe, expect, it } from 'vitest';
import { cardRequest, reference, startHarness, useHarness } from './harness.js';

const h = useHarness();

describe.each(['acme', 'globex'] as const)('%s follow-up operations', (processor) => {
  const base = `/${processor}/v1/payments`;

  /** Authorizes and, on globex, waits for the outcome callback (the gateway acts only after it). */
  async function authorized(number: string, capture: boolean): Promise<string> {
    const res = await h.call('POST', base, cardRequest(number, { capture }));
    if (processor === 'globex') await h.receiver.waitFor(res.body.id);
    return res.body.id;
  }

  it('captures an authorization once, in full or in part', async () => {
    const id = await authorized('4242424242424242', false);
    const captured = await h.call('POST', `${base}/${id}/capture`, { amount: 1050 });
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({ id, status: 'captured' });
    expect((await h.call('GET', `${base}/${id}`)).body).toMatchObject({ status: 'captured', amountCaptured: 1050 });

    const again = await h.call('POST', `${base}/${id}/capture`, { amount: 1050 });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_state');

    const partial = await authorized('4242424242424242', false);
    await h.call('POST', `${base}/${partial}/capture`, { amount: 600 });
    expect((await h.call('GET', `${base}/${partial}`)).body).toMatchObject({
      status: 'captured',
      amount: 1050,
      amountCaptured: 600,
    });
  });

  it('captures the full amount when none is given', async () => {
    const id = await authorized('4242424242424242', false);
    expect((await h.call('POST', `${base}/${id}/capture`)).body).toMatchObject({
      status: 'captured',
      amountCaptured: 1050,
    });
  });

  it('refuses to capture what is not authorized', async () => {
    const declined = await authorized('4000000000000002', false);
    expect((await h.call('POST', `${base}/${declined}/capture`, { amount: 1050 })).status).toBe(409);
    const captured = await authorized('4242424242424242', true);
    expect((await h.call('POST', `${base}/${captured}/capture`, { amount: 1050 })).body).toMatchObject({
      error: 'invalid_state',
    });
  });

  it('voids an uncaptured authorization, and only that', async () => {
    const id = await authorized('4242424242424242', false);
    const voided = await h.call('POST', `${base}/${id}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body).toEqual({ id, status: 'voided' });
    expect((await h.call('GET', `${base}/${id}`)).body.status).toBe('voided');
    expect((await h.call('POST', `${base}/${id}/void`)).status).toBe(409);
    expect((await h.call('POST', `${base}/${id}/capture`, { amount: 1050 })).status).toBe(409);

    const captured = await authorized('4242424242424242', true);
    const refused = await h.call('POST', `${base}/${captured}/void`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('invalid_state');
  });

  it('refunds in part and in full, refuses an over-refund, and is idempotent by reference', async () => {
    const id = await authorized('4242424242424242', true);
    const first = await h.call('POST', `${base}/${id}/refunds`, { amount: 500, reference: 'rf_gw_1' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: expect.stringMatching(/^rf_[0-9a-f]+$/), status: 'succeeded' });
    expect((await h.call('GET', `${base}/${id}`)).body).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 500,
    });

    const repeated = await h.call('POST', `${base}/${id}/refunds`, { amount: 500, reference: 'rf_gw_1' });
    expect(repeated.body).toEqual(first.body);
    expect((await h.call('GET', `${base}/${id}`)).body.amountRefunded).toBe(500);

    const over = await h.call('POST', `${base}/${id}/refunds`, { amount: 551, reference: 'rf_gw_2' });
    expect(over.status).toBe(409);
    expect((await h.call('GET', `${base}/${id}`)).body.amountRefunded).toBe(500);

    const rest = await h.call('POST', `${base}/${id}/refunds`, { amount: 550, reference: 'rf_gw_2' });
    expect(rest.body.status).toBe('succeeded');
    expect(rest.body.id).not.toBe(first.body.id);
    expect((await h.call('GET', `${base}/${id}`)).body).toMatchObject({
      status: 'refunded',
      amountCaptured: 1050,
      amountRefunded: 1050,
    });
    expect((await h.call('POST', `${base}/${id}/refunds`, { amount: 1, reference: 'rf_gw_3' })).status).toBe(409);
  });

  it('refunds only captured money', async () => {
    const id = await authorized('4242424242424242', false);
    const res = await h.call('POST', `${base}/${id}/refunds`, { amount: 100, reference: 'rf_gw_x' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('invalid_state');
  });

  it('answers status by id and by reference, and 404 for the unknown', async () => {
    const request = cardRequest('4000000000000002');
    const res = await h.call('POST', base, request);
    if (processor === 'globex') await h.receiver.waitFor(res.body.id);
    const expected = {
      id: res.body.id,
      reference: request.reference,
      status: 'declined',
      amount: 1050,
      amountCaptured: 0,
      amountRefunded: 0,
      declineCode: '05',
      declineReason: 'do not honor',
    };
    expect((await h.call('GET', `${base}/${res.body.id}`)).body).toMatchObject(expected);
    expect((await h.call('GET', `${base}?reference=${request.reference}`)).body).toMatchObject(expected);

    const unknownId = await h.call('GET', `${base}/${processor}_unknown`);
    expect(unknownId.status).toBe(404);
    expect(unknownId.body.error).toBe('not_found');
    expect((await h.call('GET', `${base}?reference=${reference()}`)).body).toMatchObject({ error: 'not_found' });
    expect((await h.call('POST', `${base}/${processor}_unknown/capture`, { amount: 1 })).status).toBe(404);
  });

  it('X-Sandbox-Hang-Ms holds the answer back but records the payment', async () => {
    const request = cardRequest('4242424242424242');
    const timedOut = fetch(`${h.sandbox.url}${base}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sandbox-hang-ms': '60000' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(200),
    });
    await expect(timedOut).rejects.toThrow();
    const status = await h.call('GET', `${base}?reference=${request.reference}`);
    expect(status.status).toBe(200);
    expect(status.body.reference).toBe(request.reference);
    // The gateway's retry with the same reference gets the first result, not a second charge.
    const retry = await h.call('POST', base, request);
    expect(retry.body.id).toBe(status.body.id);
  });

  it('refuses a malformed hang or callback header', async () => {
    expect((await h.call('POST', base, cardRequest('4242424242424242'), { 'x-sandbox-hang-ms': 'soon' })).status).toBe(
      400,
    );
    expect(
      (await h.call('POST', base, cardRequest('4242424242424242'), { 'x-sandbox-callback': 'sometimes' })).body,
    ).toMatchObject({
      error: 'invalid_request',
    });
  });
});

describe('SANDBOX_LATENCY_MS', () => {
  it('delays every processor answer', async () => {
    const slow = await startHarness({ latencyMs: 1500 });
    try {
      const call = (signal?: AbortSignal) =>
        fetch(`${slow.sandbox.url}/acme/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(cardRequest('4242424242424242')),
          signal,
        });
      await expect(call(AbortSignal.timeout(100))).rejects.toThrow();
      expect((await call()).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
