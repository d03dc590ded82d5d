import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, expectUpiExpiry, payer, waitForStatus } from './fixtures.js';
import { dereference } from '../../proof/fuzz/contract.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const intentBody = (extra: Record<string, unknown> = {}) => ({
  ...payer,
  upiFlow: 'intent',
  amount: 499,
  unit: 'INR',
  ...extra,
});

async function intent(extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const id = await createRequest(gw, m, 499, 'INR');
  const res = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: intentBody(extra), headers });
  return { id, res };
}

/** The payer's UPI app, played by the sandbox payer page reached through the gateway's address. */
async function answer(redirectUrl: string, decision: 'approve' | 'decline') {
  expect(redirectUrl.startsWith(`${gw.url}/upi-payer/upi_`)).toBe(true);
  const page = await fetch(redirectUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<button[^>]*>Approve<\/button>/);
  const posted = await fetch(redirectUrl, { method: 'POST', body: new URLSearchParams({ decision }) });
  expect(posted.status).toBe(200);
  return posted.text();
}

/** The callbacks the sandbox sent for a transaction, with the gateway's answer (null while none). */
async function callbacksOf(transactionId: string) {
  const sent = (await (await fetch(`${gw.gateway.sandbox!.url}/control/callbacks`)).json()) as Array<{
    body: { transactionId: string };
    status: number | null;
  }>;
  return sent.filter((c) => c.body.transactionId === transactionId);
}

const read = async (paymentId: number) => (await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body;
const statusOf = async (id: number) =>
  (await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey })).body;

describe('UPI intent (upiFlow: "intent")', () => {
  it('answers requires_action with the upi://pay link, the payer page and the expiry; no UPI id needed', async () => {
    const { res } = await intent();
    expect(res.status, res.text).toBe(200);
    const paymentId = res.body.paymentId;
    expect(res.body).toMatchObject({
      status: 'requires_action',
      method: 'upi',
      processor: 'upi',
      card: null,
      cardToken: null,
      transactionId: expect.stringMatching(/^upi_/),
      upiIntentUrl: `upi://pay?pa=svcgateway%40sandbox&pn=SVC%20Sandbox%20Merchant&am=499.00&cu=INR&tr=pay_${paymentId}`,
      redirectUrl: expect.stringMatching(/\/upi-payer\/upi_[0-9a-f]+$/),
      upiExpiresAt: new Date(gw.clock.now().getTime() + 300_000).toISOString(),
    });
    expect(await read(paymentId)).toMatchObject({ upiIntentUrl: res.body.upiIntentUrl });
  });

  it('approved on the payer page: succeeded by the PSP callback, the request paid, the link gone', async () => {
    const { id, res } = await intent();
    expect(await answer(res.body.redirectUrl, 'approve')).toContain('Payment approved.');
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled).toMatchObject({
      status: 'succeeded',
      amountCaptured: 499,
      failure: null,
      redirectUrl: null,
      upiIntentUrl: null,
      upiExpiresAt: null,
    });
    expect(await statusOf(id)).toMatchObject({ status: 'paid', lastPayment: { status: 'succeeded' } });
  });

  it('declined on the payer page: failed with UPI_TRANSACTION_FAILED UPI002 U69; the request reopens', async () => {
    const { id, res } = await intent();
    await answer(res.body.redirectUrl, 'decline');
    const failure = { error: 'UPI_TRANSACTION_FAILED', code: 'UPI002', details: { upiResponse: 'U69' } };
    expect(await waitForStatus(gw, m, res.body.paymentId, 'requires_action')).toMatchObject({
      status: 'failed',
      failure,
    });
    expect(await statusOf(id)).toMatchObject({ status: 'open', lastPayment: { status: 'failed', failure } });
    const again = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: intentBody() });
    expect(again.body.status).toBe('requires_action');
  });

  it('unanswered: fails after UPI_COLLECT_TTL_SECONDS (manual clock); a late approval changes nothing', async () => {
    const { id, res } = await intent();
    await expectUpiExpiry(gw, m, res.body.paymentId, id);
    // The sandbox's own clock has not run out: the payer still approves there, too late for the gateway.
    await answer(res.body.redirectUrl, 'approve');
    for (let i = 0; i < 100 && !(await callbacksOf(res.body.transactionId)).some((c) => c.status === 200); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await gw.runJobs();
    expect(await read(res.body.paymentId)).toMatchObject({ status: 'failed' });
    expect(await statusOf(id)).toMatchObject({ status: 'open' });
  });

  for (const mode of ['duplicate', 'out-of-order'] as const) {
    it(`callbacks ${mode} (X-Sandbox-Callback) and a replay leave one success`, async () => {
      const { id, res } = await intent({}, { 'x-sandbox-callback': mode });
      await answer(res.body.redirectUrl, 'approve');
      expect(await waitForStatus(gw, m, res.body.paymentId, 'requires_action')).toMatchObject({
        status: 'succeeded',
      });
      const resent = await fetch(`${gw.gateway.sandbox!.url}/control/callbacks/${res.body.transactionId}/resend`, {
        method: 'POST',
      });
      expect(resent.status).toBe(200);
      await gw.runJobs();
      expect(await read(res.body.paymentId)).toMatchObject({ status: 'succeeded', amountCaptured: 499 });
      expect(await statusOf(id)).toMatchObject({ status: 'paid' });
      const request = await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey });
      expect(request.body).toMatchObject({ status: 'paid', amountPaid: 499 });
      // The sandbox did send the extra callbacks: two for duplicate / out-of-order, one replay.
      expect((await callbacksOf(res.body.transactionId)).length).toBe(3);
    });
  }

  it('a second answer on the payer page changes nothing', async () => {
    const { res } = await intent();
    await answer(res.body.redirectUrl, 'approve');
    await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    const again = await fetch(res.body.redirectUrl, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'decline' }),
    });
    expect(await again.text()).toContain('Payment approved.');
    await gw.runJobs();
    expect((await read(res.body.paymentId)).status).toBe('succeeded');
  });

  it('a well-formed upiId may come along (kept, not needed); a malformed one is still UPI001', async () => {
    expect((await intent({ upiId: 'jane@okaxis' })).res.body.status).toBe('requires_action');
    const { res } = await intent({ upiId: 'not-an-id' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'UPI001', details: { upiId: 'not-an-id' } });
  });

  it('upiFlow "collect" is the default and needs upiId; another flow is a validation error', async () => {
    const id = await createRequest(gw, m, 499, 'INR');
    const send = (body: Record<string, unknown>) =>
      gw.call('POST', `/payments/h2h/${id}`, {
        apiKey: m.apiKey,
        body: { ...payer, amount: 499, unit: 'INR', ...body },
      });
    const missing = await send({ upiFlow: 'collect' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(JSON.stringify(missing.body)).toContain('upiId');
    const unknown = await send({ upiFlow: 'qr', upiId: 'jane@okaxis' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('upiFlow');
    const withCard = await send({ upiFlow: 'intent', number: '4242424242424242' });
    expect(withCard.body).toMatchObject({ details: { conflictingFields: ['number', 'upiId'] } });
    const collect = await send({ upiFlow: 'collect', upiId: 'success@upi' });
    expect(collect.body).toMatchObject({ status: 'requires_action', redirectUrl: null, upiIntentUrl: null });
  });

  it('a checkout session token may start an intent for its own request', async () => {
    const id = await createRequest(gw, m, 499, 'INR');
    const session = await gw.call('POST', `/payment-requests/${id}/checkout-session`, { apiKey: m.apiKey });
    expect(session.status, session.text).toBe(200);
    const res = await gw.call('POST', `/payments/h2h/${id}`, {
      headers: { 'x-checkout-token': session.body.token },
      body: intentBody(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.upiIntentUrl).toMatch(/^upi:\/\/pay\?/);
  });

  it('/openapi.json documents upiFlow and the answer fields', async () => {
    const doc = (await gw.call('GET', '/openapi.json')).body;
    const h2h = doc.paths['/payments/h2h/{id}'].post;
    const upi = dereference(doc, h2h.requestBody.content['application/json'].schema).anyOf.find(
      (v: any) => v.properties.upiId,
    );
    expect(JSON.stringify(upi.properties.upiFlow)).toContain('"intent"');
    expect(upi.description).toContain('upiFlow "intent"');
    const answer = dereference(doc, h2h.responses['200'].content['application/json'].schema).properties;
    expect(answer.upiIntentUrl.description).toContain('upi://pay');
    expect(answer.upiExpiresAt).toBeDefined();
  });
});
