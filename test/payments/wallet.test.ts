import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, walletPayment } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const wallet = walletPayment;

async function pay(body: Record<string, unknown>, headers?: Record<string, string>) {
  const id = await createRequest(gw, m);
  const res = await gw.call('POST', `/payments/wallet/${id}`, { apiKey: m.apiKey, body, headers });
  return { id, res };
}

const requestOf = async (id: number) => (await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body;

describe('wallet payments (decisions.md "Sandbox behaviour", wallet tokens)', () => {
  for (const walletType of ['googlepay', 'applepay', 'G', 'A']) {
    it(`any other token with walletType ${walletType} is approved and pays the request`, async () => {
      const { id, res } = await pay(wallet(`tok_${walletType}_ok`, walletType));
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({
        status: 'succeeded',
        method: 'wallet',
        processor: 'wallet',
        card: null,
        cardToken: null,
        amountCaptured: 10.5,
        transactionId: expect.stringMatching(/^wal_/),
      });
      expect(await requestOf(id)).toMatchObject({ status: 'paid' });
    });
  }

  it('captureDelayHours authorizes now and captures later, as for cards', async () => {
    const { res } = await pay(wallet('tok_delayed', 'G', { captureDelayHours: 2 }));
    expect(res.body).toMatchObject({ status: 'authorized', amountCaptured: 0 });
    const captured = await gw.call('POST', `/payments/${res.body.paymentId}/capture`, { apiKey: m.apiKey });
    expect(captured.body).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
  });

  it('wallet_decline → 402 PAYMENT_DECLINED P001 with declineReason and issuerResponse; stored; request open', async () => {
    const { id, res } = await pay(wallet('wallet_decline'));
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: 'PAYMENT_DECLINED',
      code: 'P001',
      details: { declineReason: expect.any(String), issuerResponse: '05' },
      paymentId: expect.any(Number),
    });
    const stored = await gw.call('GET', `/payments/${res.body.paymentId}`, { apiKey: m.apiKey });
    expect(stored.body).toMatchObject({ status: 'failed', declineCode: '05', failure: { code: 'P001' } });
    expect(await requestOf(id)).toMatchObject({ status: 'open' });
  });

  it('wallet_3ds leads into the 3-D Secure flow: challenge, approve, back to successUrl', async () => {
    const { id, res } = await pay(wallet('wallet_3ds', 'applepay', { successUrl: 'https://shop.example/ok' }));
    expect(res.body).toMatchObject({ status: 'requires_action', challengeRequired: true });
    const redirectUrl: string = res.body.redirectUrl;
    expect(redirectUrl.startsWith(`${gw.url}/acs/`)).toBe(true);
    expect(await (await fetch(redirectUrl)).text()).toContain('applepay wallet');
    const posted = await fetch(redirectUrl, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'approve' }),
      redirect: 'manual',
    });
    // The callback is settled by the job runner (off in tests); the landing page would refresh until then.
    await gw.runJobs();
    const back = new URL(posted.headers.get('location')!);
    const landing = await fetch(`${gw.url}${back.pathname}${back.search}`, { redirect: 'manual' });
    expect(landing.status).toBe(303);
    const to = new URL(landing.headers.get('location')!);
    expect(to.origin + to.pathname).toBe('https://shop.example/ok');
    expect(to.searchParams.get('status')).toBe('succeeded');
    expect(await requestOf(id)).toMatchObject({ status: 'paid' });
  });

  it('requires name, email, token and wallet.walletType; rejects an unknown walletType', async () => {
    const id = await createRequest(gw, m);
    const missing = await gw.call('POST', `/payments/wallet/${id}`, { apiKey: m.apiKey, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details.missingFields).toEqual(expect.arrayContaining(['name', 'email', 'token', 'wallet']));
    const noType = await gw.call('POST', `/payments/wallet/${id}`, {
      apiKey: m.apiKey,
      body: { ...wallet('tok'), wallet: {} },
    });
    expect(noType.status).toBe(400);
    const badType = await gw.call('POST', `/payments/wallet/${id}`, {
      apiKey: m.apiKey,
      body: wallet('tok', 'paypal'),
    });
    expect(badType.status).toBe(400);
    expect(await requestOf(id)).toMatchObject({ status: 'open' });
  });

  it('unknown fields are ignored and named in X-Ignored-Fields', async () => {
    const { res } = await pay(wallet('tok_extra', 'G', { birthDate: '1990-01-01' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toContain('birthDate');
  });

  it('an idempotent retry answers the same payment without paying twice', async () => {
    const id = await createRequest(gw, m);
    const send = () =>
      gw.call('POST', `/payments/wallet/${id}`, {
        apiKey: m.apiKey,
        body: wallet('tok_once'),
        headers: { 'x-idempotency-key': `wallet-${id}` },
      });
    const first = await send();
    const second = await send();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.paymentId).toBe(first.body.paymentId);
  });

  it('a live key is refused: 403', async () => {
    const live = await gw.merchant({ withLiveKey: true });
    const id = await createRequest(gw, live, 10.5, 'EUR', live.liveKey);
    const res = await gw.call('POST', `/payments/wallet/${id}`, { apiKey: live.liveKey, body: wallet('tok') });
    expect(res.status).toBe(403);
  });

  it('a checkout session token may pay its own request, and no other', async () => {
    const id = await createRequest(gw, m);
    const other = await createRequest(gw, m);
    const session = await gw.call('POST', `/payment-requests/${id}/checkout-session`, { apiKey: m.apiKey });
    expect(session.status, session.text).toBe(200);
    const token: string = session.body.token;
    const elsewhere = await gw.call('POST', `/payments/wallet/${other}`, {
      headers: { 'x-checkout-token': token },
      body: wallet('tok_checkout'),
    });
    expect(elsewhere.status).toBe(403);
    const own = await gw.call('POST', `/payments/wallet/${id}`, {
      headers: { 'x-checkout-token': token },
      body: wallet('tok_checkout'),
    });
    expect(own.status, own.text).toBe(200);
    expect(own.body.status).toBe('succeeded');
  });
});
