import { beforeAll, describe, expect, it } from 'vitest';
import { hmacHex } from '../../src/lib/crypto.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, expectUpiExpiry, payer, waitForStatus } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const upi = (upiId: string) => ({ ...payer, upiId, amount: 10.5, unit: 'EUR' });

// The payer's answer follows the PSP's at once; held back a moment so a busy machine cannot process it before
// the gateway has recorded the collect as requires_action (then the collect's own answer would already be the
// outcome, which is also right: whichever comes first settles the payment).
const PAYER_AFTER_ANSWER = { 'x-sandbox-callback': 'late:300' };

async function collect(upiId: string, headers: Record<string, string> = PAYER_AFTER_ANSWER, merchant = m) {
  const id = await createRequest(gw, merchant);
  const res = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: merchant.apiKey, body: upi(upiId), headers });
  return { id, res };
}

const read = async (paymentId: number) => (await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body;
const statusOf = async (id: number) =>
  (await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey })).body;

describe('UPI collect (decisions.md "Sandbox behaviour", UPI ids)', () => {
  it('success@upi: requires_action while the payer decides, then succeeded by the PSP callback', async () => {
    const { id, res } = await collect('success@upi');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status: 'requires_action',
      method: 'upi',
      processor: 'upi',
      card: null,
      cardToken: null,
      transactionId: expect.stringMatching(/^upi_/),
    });
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled).toMatchObject({ status: 'succeeded', amountCaptured: 10.5, failure: null });
    expect(await statusOf(id)).toMatchObject({
      status: 'paid',
      lastPayment: { paymentId: res.body.paymentId, status: 'succeeded' },
    });
  });

  for (const [upiId, upiResponse] of [
    ['pin@upi', 'U30'],
    ['risk@upi', 'U16'],
    ['device@upi', 'U66'],
    ['decline@upi', 'U69'],
  ] as const) {
    it(`${upiId}: failed with UPI_TRANSACTION_FAILED UPI002 ${upiResponse}, readable and polled; request open`, async () => {
      const { id, res } = await collect(upiId);
      expect(res.body.status).toBe('requires_action');
      const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
      const failure = {
        error: 'UPI_TRANSACTION_FAILED',
        code: 'UPI002',
        details: { upiResponse, reason: expect.any(String) },
      };
      expect(settled).toMatchObject({ status: 'failed', failure });
      expect(await statusOf(id)).toMatchObject({
        status: 'open',
        lastPayment: { paymentId: res.body.paymentId, status: 'failed', failure },
      });
    });
  }

  it('timeout@upi: never answered; after UPI_COLLECT_TTL_SECONDS the payment fails and the request reopens', async () => {
    const { id, res } = await collect('timeout@upi');
    expect(res.body.status).toBe('requires_action');
    await expectUpiExpiry(gw, m, res.body.paymentId, id);
    const again = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: upi('success@upi') });
    expect(again.body.status).toBe('requires_action');
  });

  for (const upiId of ['no-at-sign', 'a@', '@bank', 'x@upi', 'user@1bank', 'user@bank@more']) {
    it(`${JSON.stringify(upiId)} → 400 INVALID_UPI_ID UPI001 with upiId and expectedFormat, nothing stored`, async () => {
      const { id, res } = await collect(upiId);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'INVALID_UPI_ID',
        code: 'UPI001',
        details: { upiId, expectedFormat: 'username@bankcode' },
      });
      expect(await statusOf(id)).toMatchObject({ status: 'open', lastPayment: null });
    });
  }

  it('a live key is refused like for cards: 403; isSandbox: true with a live key: 400', async () => {
    const live = await gw.merchant({ withLiveKey: true });
    const id = await createRequest(gw, live, 10.5, 'EUR', live.liveKey);
    const refused = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: live.liveKey, body: upi('success@upi') });
    expect(refused.status).toBe(403);
    const sandbox = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: live.liveKey,
      body: { ...upi('success@upi'), isSandbox: true },
    });
    expect(sandbox.status).toBe(400);
  });

  it('the same idempotency key answers the same payment', async () => {
    const id = await createRequest(gw, m);
    const send = () =>
      gw.call('POST', `/payments/h2h/${id}`, {
        apiKey: m.apiKey,
        body: upi('success@upi'),
        headers: { 'x-idempotency-key': `upi-${id}` },
      });
    const first = await send();
    const second = await send();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.paymentId).toBe(first.body.paymentId);
  });
});

describe('UPI callbacks replayed and reordered', () => {
  const sign = (body: string) => hmacHex('sha512', gw.gateway.app.ctx.secrets.callbackSigningSecret, body);
  const deliver = async (body: Record<string, unknown>) => {
    const raw = JSON.stringify(body);
    return gw.call('POST', '/callbacks/svc', { body: raw, headers: { 'x-webhook-signature': sign(raw) } });
  };

  it('a replayed success and a late failure leave the succeeded payment as it is', async () => {
    const { res } = await collect('success@upi');
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled.status).toBe('succeeded');
    const resent = await fetch(`${gw.gateway.sandbox!.url}/control/callbacks/${res.body.transactionId}/resend`, {
      method: 'POST',
    });
    expect(resent.status).toBe(200);
    const late = await deliver({
      eventId: 'evt_upi_late_failure',
      transactionId: res.body.transactionId,
      status: 'failed',
      amount: 1050,
      currency: 'EUR',
      timestamp: new Date().toISOString(),
      providerData: { reference: `pay_${res.body.paymentId}`, upiResponse: 'U69', declineReason: 'declined' },
    });
    expect(late.status).toBe(200);
    await gw.runJobs();
    expect(await read(res.body.paymentId)).toMatchObject({ status: 'succeeded', failure: null });
  });

  it("the payer's answer before the PSP's: it settles the payment, and the collect's own answer is that outcome", async () => {
    // The PSP holds its answer back a second (its own callback a minute); the payer's failure is delivered meanwhile.
    const id = await createRequest(gw, m);
    const answer = gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: m.apiKey,
      body: upi('success@upi'),
      headers: { 'x-sandbox-hang-ms': '1000', 'x-sandbox-callback': 'late:60000' },
    });
    let pending: { paymentId: number; status: string } | undefined;
    while (!pending) {
      const attempts = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
      pending = attempts.body.data[0];
    }
    expect(pending.status).toBe('pending');
    const failed = await deliver({
      eventId: 'evt_upi_before_answer',
      transactionId: 'upi_unknown_yet',
      status: 'failed',
      amount: 1050,
      currency: 'EUR',
      timestamp: new Date().toISOString(),
      providerData: {
        reference: `pay_${pending.paymentId}`,
        upiResponse: 'U16',
        declineReason: 'risk threshold exceeded',
      },
    });
    expect(failed.status).toBe(200);
    await gw.runJobs();
    const res = await answer;
    expect(res.status, res.text).toBe(402);
    expect(res.body).toMatchObject({ error: 'UPI_TRANSACTION_FAILED', paymentId: pending.paymentId });
    expect(await read(pending.paymentId)).toMatchObject({
      status: 'failed',
      failure: { details: { upiResponse: 'U16' } },
    });
    expect(await statusOf(id)).toMatchObject({ status: 'open' });
  });

  it('outcomes out of order: the first one settles the payment, a contrary later one changes nothing', async () => {
    // The PSP's own callback is held back a minute (X-Sandbox-Callback: late); these two arrive first.
    const { res } = await collect('success@upi', { 'x-sandbox-callback': 'late:60000' });
    expect(res.body.status).toBe('requires_action');
    const base = {
      transactionId: res.body.transactionId,
      amount: 1050,
      currency: 'EUR',
      timestamp: new Date().toISOString(),
    };
    const failed = await deliver({
      ...base,
      eventId: 'evt_upi_first_failure',
      status: 'failed',
      providerData: { reference: `pay_${res.body.paymentId}`, upiResponse: 'U30', declineReason: 'invalid PIN' },
    });
    expect(failed.status).toBe(200);
    await gw.runJobs();
    await deliver({ ...base, eventId: 'evt_upi_after', status: 'success', providerData: {} });
    await gw.runJobs();
    expect(await read(res.body.paymentId)).toMatchObject({
      status: 'failed',
      failure: { details: { upiResponse: 'U30', reason: 'invalid PIN' } },
    });
  });
});
