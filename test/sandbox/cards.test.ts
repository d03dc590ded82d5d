import { describe, expect, it } from 'vitest';
import { cardRequest, useHarness } from './harness.js';

// decisions.md "Sandbox behaviour", restated here so the test checks the sandbox against the table.
const APPROVING = ['4242424242424242', '5555555555554444', '378282246310005', '4111111111111111'];
const DECLINING: Array<[string, string, string]> = [
  ['4000000000000002', '05', 'do not honor'],
  ['4000000000009995', '51', 'insufficient funds'],
  ['4000000000000069', '54', 'expired card'],
  ['4000000000000572', '57', 'transaction not permitted'],
  ['4000000000000614', '61', 'exceeds withdrawal limit'],
];
const CHALLENGE_CARDS = ['4000002760003184', '4000008400001629'];

const h = useHarness();

describe('acme answers the card table synchronously', () => {
  it.each(APPROVING)('%s is approved and captured', async (number) => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest(number));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'approved',
      captured: true,
      authorizationCode: expect.stringMatching(/^[0-9A-Z]{6}$/),
    });
    expect(res.body.id).toMatch(/^acme_/);
  });

  it.each(DECLINING)('%s is declined %s (%s)', async (number, code, reason) => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest(number));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'declined', declineCode: code, declineReason: reason, captured: false });
    expect(res.body.authorizationCode).toBeUndefined();
  });

  it('4000000000003220 is approved frictionless with ECI 05', async () => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest('4000000000003220'));
    expect(res.body).toMatchObject({ status: 'approved', eci: '05', captured: true });
    expect(res.body.challengeUrl).toBeUndefined();
  });

  it.each(CHALLENGE_CARDS)('%s asks for a 3-D Secure challenge on the sandbox ACS', async (number) => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest(number));
    expect(res.body).toMatchObject({ status: 'challenge', captured: false });
    expect(res.body.challengeUrl).toMatch(new RegExp(`^${h.sandbox.url}/acs/acs_[0-9a-f]+$`));
  });

  it('threeDS.force turns an approving card into a challenge, but not a declining one', async () => {
    const forced = await h.call(
      'POST',
      '/acme/v1/payments',
      cardRequest('4242424242424242', { threeDS: { force: true } }),
    );
    expect(forced.body).toMatchObject({ status: 'challenge', challengeUrl: expect.stringContaining('/acs/acs_') });
    const frictionless = await h.call(
      'POST',
      '/acme/v1/payments',
      cardRequest('4000000000003220', { threeDS: { force: true } }),
    );
    expect(frictionless.body.status).toBe('challenge');
    const declined = await h.call(
      'POST',
      '/acme/v1/payments',
      cardRequest('4000000000000002', { threeDS: { force: true } }),
    );
    expect(declined.body).toMatchObject({ status: 'declined', declineCode: '05' });
  });

  it('4000000000000119 is a retryable processor error and records nothing', async () => {
    const request = cardRequest('4000000000000119');
    const res = await h.call('POST', '/acme/v1/payments', request);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'processor_error', retryable: true });
    const status = await h.call('GET', `/acme/v1/payments?reference=${request.reference}`);
    expect(status.status).toBe(404);
    // Deterministic: a retry fails the same way.
    expect((await h.call('POST', '/acme/v1/payments', request)).status).toBe(503);
  });

  it('4000000000000994 answers pending, then approves by a callback to /callbacks/svc', async () => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest('4000000000000994'));
    expect(res.body).toMatchObject({ status: 'pending', captured: false });
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.path).toBe('/callbacks/svc');
    expect(callback.body).toMatchObject({
      transactionId: res.body.id,
      status: 'success',
      amount: 1050,
      currency: 'EUR',
    });
    expect((await h.call('GET', `/acme/v1/payments/${res.body.id}`)).body).toMatchObject({
      status: 'captured',
      amountCaptured: 1050,
    });
  });

  it('capture: false only authorizes', async () => {
    const res = await h.call('POST', '/acme/v1/payments', cardRequest('4242424242424242', { capture: false }));
    expect(res.body).toMatchObject({ status: 'approved', captured: false });
    const status = await h.call('GET', `/acme/v1/payments/${res.body.id}`);
    expect(status.body).toMatchObject({ status: 'approved', amount: 1050, amountCaptured: 0, amountRefunded: 0 });
  });
});

describe('globex answers 202 and sends the outcome to /callbacks/svc-gateway', () => {
  async function outcome(number: string, overrides: Record<string, unknown> = {}) {
    const request = cardRequest(number, overrides);
    const res = await h.call('POST', '/globex/v1/payments', request);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.stringMatching(/^gbx_[0-9a-f]+$/), status: 'accepted' });
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.path).toBe('/callbacks/svc-gateway');
    expect(callback.signatureValid).toBe(true);
    expect(callback.body).toMatchObject({
      eventId: expect.stringMatching(/^evt_/),
      transactionId: res.body.id,
      amount: 1050,
      currency: 'EUR',
      providerData: { reference: request.reference },
    });
    expect(new Date(callback.body.timestamp).toISOString()).toBe(callback.body.timestamp);
    return callback.body;
  }

  it.each(APPROVING)('%s succeeds', async (number) => {
    expect(await outcome(number)).toMatchObject({ status: 'success' });
  });

  it.each(DECLINING)('%s fails with %s (%s)', async (number, code, reason) => {
    expect(await outcome(number)).toMatchObject({
      status: 'failed',
      providerData: { declineCode: code, declineReason: reason },
    });
  });

  it('4000000000003220 succeeds frictionless', async () => {
    expect(await outcome('4000000000003220')).toMatchObject({ status: 'success', providerData: { eci: '05' } });
  });

  it.each(CHALLENGE_CARDS)('%s requires action with the ACS challenge URL', async (number) => {
    const body = await outcome(number);
    expect(body.status).toBe('requires_action');
    expect(body.providerData.challengeUrl).toMatch(new RegExp(`^${h.sandbox.url}/acs/acs_`));
  });

  it('threeDS.force with an approving card requires action', async () => {
    expect(await outcome('5555555555554444', { threeDS: { force: true } })).toMatchObject({
      status: 'requires_action',
    });
  });

  it('4000000000000994 succeeds by a later callback', async () => {
    const request = cardRequest('4000000000000994');
    const res = await h.call('POST', '/globex/v1/payments', request);
    expect((await h.call('GET', `/globex/v1/payments/${res.body.id}`)).body.status).toBe('pending');
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.body).toMatchObject({ status: 'success', providerData: { reference: request.reference } });
  });

  it('4000000000000119 is a retryable processor error (503, no callback)', async () => {
    const res = await h.call('POST', '/globex/v1/payments', cardRequest('4000000000000119'));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: 'processor_error', retryable: true });
  });
});

describe.each(['acme', 'globex'])('%s checks the card again (defence in depth)', (processor) => {
  it('refuses a number failing Luhn', async () => {
    const res = await h.call('POST', `/${processor}/v1/payments`, cardRequest('4242424242424241'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_card', field: 'number' });
  });

  it('refuses a card past its expiry', async () => {
    const request = cardRequest('4242424242424242');
    const res = await h.call('POST', `/${processor}/v1/payments`, {
      ...request,
      card: { ...request.card, expYear: 2020 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_card', field: 'expiration' });
  });

  it('refuses a malformed request without coercing types', async () => {
    const res = await h.call('POST', `/${processor}/v1/payments`, {
      ...cardRequest('4242424242424242'),
      amount: '1050',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('processor-side idempotency by reference', () => {
  it('acme: the same reference again returns the first result, no second charge', async () => {
    const request = cardRequest('4242424242424242');
    const first = await h.call('POST', '/acme/v1/payments', request);
    const again = await h.call('POST', '/acme/v1/payments', request);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const status = await h.call('GET', `/acme/v1/payments?reference=${request.reference}`);
    expect(status.body).toMatchObject({ id: first.body.id, amountCaptured: 1050 });
  });

  it('acme: a declined reference stays declined', async () => {
    const request = cardRequest('4000000000009995');
    const first = await h.call('POST', '/acme/v1/payments', request);
    expect((await h.call('POST', '/acme/v1/payments', request)).body).toEqual(first.body);
  });

  it('globex: the same reference again returns the same id and sends no second outcome', async () => {
    const request = cardRequest('4242424242424242');
    const first = await h.call('POST', '/globex/v1/payments', request);
    await h.receiver.waitFor(first.body.id);
    const again = await h.call('POST', '/globex/v1/payments', request);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    // A later payment's callback arriving marks that the sandbox had its chance to send another.
    const marker = await h.call('POST', '/globex/v1/payments', cardRequest('4242424242424242'));
    await h.receiver.waitFor(marker.body.id);
    expect(h.receiver.for(first.body.id)).toHaveLength(1);
  });
});
