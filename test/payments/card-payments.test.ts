import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import {
  CARDS,
  DECLINES,
  PATHS,
  card,
  createRequest,
  h2hCard,
  payer,
  waitForStatus,
  type PathName,
} from './fixtures.js';
import { setMerchantStatus } from '../../src/modules/merchants/index.js';
import { dereference } from '../../proof/fuzz/contract.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

async function pay(
  path: PathName,
  number: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
) {
  const id = await createRequest(gw, m);
  const body = path === 'h2h' ? { ...h2hCard(number), ...extra } : { ...card(number), ...extra };
  const res = await gw.call('POST', PATHS[path](id), { apiKey: m.apiKey, body, headers });
  return { id, res };
}

async function request(id: number) {
  return (await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body;
}

describe('approved cards', () => {
  for (const path of ['h2h', 'acme'] as const) {
    for (const number of [CARDS.visa, CARDS.mastercard, CARDS.amex, CARDS.otherLuhn, CARDS.frictionless]) {
      it(`${number} on ${path} succeeds at once and pays the request`, async () => {
        const { id, res } = await pay(path, number);
        expect(res.status, res.text).toBe(200);
        expect(res.body).toMatchObject({
          status: 'succeeded',
          paymentRequestId: id,
          amount: 10.5,
          amountCaptured: 10.5,
          currency: 'EUR',
          processor: 'acme',
          challengeRequired: false,
        });
        expect(res.body.card).toEqual({
          brand: expect.any(String),
          bin: number.slice(0, 6),
          last4: number.slice(-4),
          expiration: '12/30',
        });
        expect(res.body.cardToken).toMatch(/^ctok_[0-9A-Za-z]{32}$/);
        expect(res.body.transactionId).toMatch(/^acme_/);
        expect(await request(id)).toMatchObject({ status: 'paid', amountPaid: 10.5 });
      });
    }
  }

  for (const number of [CARDS.visa, CARDS.amex, CARDS.frictionless]) {
    it(`${number} on globex is pending, then settled by the signed callback`, async () => {
      // The callback follows the answer; held back a moment so a busy machine cannot process it first.
      const { id, res } = await pay('globex', number, {}, { 'x-sandbox-callback': 'late:300' });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'pending', processor: 'globex' });
      expect(res.body.transactionId).toMatch(/^gbx_/);
      const settled = await waitForStatus(gw, m, res.body.paymentId, 'pending');
      expect(settled.status).toBe('succeeded');
      expect(await request(id)).toMatchObject({ status: 'paid' });
    });
  }
});

describe('declines', () => {
  for (const path of ['h2h', 'acme'] as const) {
    for (const [number, code] of DECLINES) {
      it(`${number} on ${path} → 402 CARD_DECLINED ${code}, failed payment stored, request open again`, async () => {
        const { id, res } = await pay(path, number);
        expect(res.status).toBe(402);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body).toMatchObject({
          status: 402,
          error: 'CARD_DECLINED',
          code: 'PAY001',
          details: { declineCode: code, declineReason: expect.any(String) },
        });
        expect(res.body.paymentId).toEqual(expect.any(Number));
        const stored = await gw.call('GET', `/payments/${res.body.paymentId}`, { apiKey: m.apiKey });
        expect(stored.body).toMatchObject({ status: 'failed', declineCode: code, cardToken: null });
        expect(await request(id)).toMatchObject({ status: 'open' });
      });
    }
  }

  for (const [number, code] of DECLINES) {
    it(`${number} on globex is pending, then failed with ${code} by callback`, async () => {
      const { id, res } = await pay('globex', number);
      expect(res.status).toBe(200);
      const settled = await waitForStatus(gw, m, res.body.paymentId, 'pending');
      expect(settled).toMatchObject({ status: 'failed', declineCode: code });
      expect(await request(id)).toMatchObject({ status: 'open' });
    });
  }

  it('a declined card can be retried with another card on the same request', async () => {
    const { id, res } = await pay('acme', CARDS.doNotHonor);
    expect(res.status).toBe(402);
    const retry = await gw.call('POST', PATHS.acme(id), { apiKey: m.apiKey, body: card(CARDS.visa) });
    expect(retry.body.status).toBe('succeeded');
  });
});

describe('processor errors and late answers', () => {
  it('h2h: a retryable processor error on acme makes one new attempt on globex', async () => {
    const { id, res } = await pay('h2h', CARDS.processorError);
    // globex also refuses this card number: both attempts are stored, the request is open again.
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: 'PROCESSOR_UNAVAILABLE', paymentId: expect.any(Number) });
    const attempts = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
    expect(attempts.body.data.map((p: { processor: string; status: string }) => [p.processor, p.status])).toEqual([
      ['globex', 'failed'],
      ['acme', 'failed'],
    ]);
    // Both attempts used the one vaulted card, shown only as BIN and last 4.
    for (const attempt of attempts.body.data)
      expect(attempt.card).toEqual({ brand: 'visa', bin: '400000', last4: '0119', expiration: '12/30' });
    expect(await request(id)).toMatchObject({ status: 'open' });
  });

  it('acme path: a processor error is a 502 with the failed payment, no failover', async () => {
    const { id, res } = await pay('acme', CARDS.processorError);
    expect(res.status).toBe(502);
    const attempts = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
    expect(attempts.body.data).toHaveLength(1);
  });

  it('a card the processor answers later is pending, then approved by callback', async () => {
    const { id, res } = await pay('acme', CARDS.answersLater);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(await request(id)).toMatchObject({ status: 'processing' });
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'pending');
    expect(settled.status).toBe('succeeded');
    expect(await request(id)).toMatchObject({ status: 'paid' });
  });
});

describe('3-D Secure', () => {
  for (const path of ['h2h', 'acme', 'globex'] as const) {
    it(`${path}: a challenge card requires action with a redirect to the ACS`, async () => {
      const { res } = await pay(path, CARDS.challengeApprove);
      expect(res.status).toBe(200);
      const payment =
        res.body.status === 'pending' ? await waitForStatus(gw, m, res.body.paymentId, 'pending') : res.body;
      expect(payment).toMatchObject({
        status: 'requires_action',
        challengeRequired: true,
        redirectUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/acs\//),
      });
    });
  }

  it('is3ds: true forces the challenge on an approving card', async () => {
    const { res } = await pay('acme', CARDS.visa, { is3ds: true });
    expect(res.body).toMatchObject({ status: 'requires_action', challengeRequired: true });
  });

  async function completeChallenge(redirectUrl: string, decision: 'approve' | 'deny') {
    const page = await fetch(redirectUrl);
    expect(await page.text()).toContain('Approve');
    const answer = await fetch(redirectUrl, {
      method: 'POST',
      body: new URLSearchParams({ decision }),
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
  }

  it('approving the challenge settles the payment through /callbacks/3ds', async () => {
    const { id, res } = await pay('acme', CARDS.challengeApprove);
    await completeChallenge(res.body.redirectUrl, 'approve');
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled.status).toBe('succeeded');
    expect(await request(id)).toMatchObject({ status: 'paid' });
  });

  it('denying the challenge fails the payment and reopens the request', async () => {
    const { id, res } = await pay('acme', CARDS.challengeApprove);
    await completeChallenge(res.body.redirectUrl, 'deny');
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled.status).toBe('failed');
    expect(await request(id)).toMatchObject({ status: 'open' });
  });

  it('a card declined after its challenge fails with 05', async () => {
    const { res } = await pay('acme', CARDS.challengeDecline);
    await completeChallenge(res.body.redirectUrl, 'approve');
    const settled = await waitForStatus(gw, m, res.body.paymentId, 'requires_action');
    expect(settled).toMatchObject({ status: 'failed', declineCode: '05' });
  });
});

describe('stored card tokens', () => {
  it('an approved card payment returns a token that pays another request of the same merchant', async () => {
    const { res } = await pay('acme', CARDS.visa);
    const next = await createRequest(gw, m, 20, 'EUR');
    const paid = await gw.call('POST', `/payments/h2h/${next}`, {
      apiKey: m.apiKey,
      body: { ...payer, token: res.body.cardToken, amount: 20, unit: 'EUR' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', method: 'token', card: { last4: '4242' }, cardToken: null });
  });

  it("another merchant's token → 404", async () => {
    const { res } = await pay('acme', CARDS.visa);
    const other = await gw.merchant();
    const id = await createRequest(gw, other);
    const attempt = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: other.apiKey,
      body: { ...payer, token: res.body.cardToken, amount: 10.5, unit: 'EUR' },
    });
    expect(attempt.status).toBe(404);
    expect(attempt.body).toMatchObject({ error: 'NOT_FOUND', status: 404 });
  });

  it('an unknown token → 404 and nothing is created', async () => {
    const id = await createRequest(gw, m);
    const attempt = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: m.apiKey,
      body: { ...payer, token: 'ctok_unknown', amount: 10.5, unit: 'EUR' },
    });
    expect(attempt.status).toBe(404);
    expect((await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey })).body.data).toEqual([]);
  });
});

describe('paid at most once', () => {
  it('20 concurrent submissions on one request: exactly one approval, the rest 409', async () => {
    const id = await createRequest(gw, m);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => gw.call('POST', PATHS.acme(id), { apiKey: m.apiKey, body: card(CARDS.visa) })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const payments = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.apiKey });
    expect(payments.body.data.filter((p: { status: string }) => p.status === 'succeeded')).toHaveLength(1);
    expect(await request(id)).toMatchObject({ status: 'paid' });
  });

  it('a paid request answers 409 to another payment', async () => {
    const { id } = await pay('acme', CARDS.visa);
    const again = await gw.call('POST', PATHS.acme(id), { apiKey: m.apiKey, body: card(CARDS.mastercard) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'CONFLICT', status: 409 });
  });
});

describe('every state change writes an outbox event in its transaction', () => {
  it('succeeded, failed and authorized payments each leave their event', async () => {
    const ok = await pay('acme', CARDS.visa);
    const declined = await pay('acme', CARDS.doNotHonor);
    const delayed = await pay('acme', CARDS.visa, { captureDelayHours: 2 });
    const events = await gw.db
      .selectFrom('outbox_events')
      .select(['type', 'object_id'])
      .where('merchant_id', '=', m.merchantId)
      .execute();
    expect(events).toContainEqual({ type: 'payment.succeeded', object_id: ok.res.body.paymentId });
    expect(events).toContainEqual({ type: 'payment.failed', object_id: declined.res.body.paymentId });
    expect(events).toContainEqual({ type: 'payment.authorized', object_id: delayed.res.body.paymentId });
  });
});

describe('live keys', () => {
  it('a live key has no live processor: 403; isSandbox: true with a live key: 400', async () => {
    const live = await gw.merchant({ withLiveKey: true });
    const id = await createRequest(gw, live, 10.5, 'EUR', live.liveKey);
    const refused = await gw.call('POST', PATHS.acme(id), { apiKey: live.liveKey, body: card(CARDS.visa) });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'INSUFFICIENT_PERMISSIONS' });
    const sandbox = await gw.call('POST', PATHS.acme(id), {
      apiKey: live.liveKey,
      body: { ...card(CARDS.visa), isSandbox: true },
    });
    expect(sandbox.status).toBe(400);
    expect(sandbox.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'isSandbox' } });
  });

  it('a test key makes sandbox payments whatever isSandbox says', async () => {
    const { res } = await pay('acme', CARDS.visa, { isSandbox: false });
    expect(res.body).toMatchObject({ status: 'succeeded', livemode: false });
  });
});

describe('checkout session tokens', () => {
  it('pay their own payment request from the browser, and nothing else', async () => {
    const id = await createRequest(gw, m);
    const other = await createRequest(gw, m);
    const minted = await gw.call('POST', `/payment-requests/${id}/checkout-session`, { apiKey: m.apiKey, body: {} });
    const token = minted.body.token as string;
    const headers = { 'X-Checkout-Token': token, Origin: new URL(gw.config.checkoutUrl).origin };

    const elsewhere = await gw.call('POST', `/payments/creditCard/acme/${other}`, { headers, body: card(CARDS.visa) });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({ error: 'FORBIDDEN', code: 'AUTH002' });
    const refund = await gw.call('POST', `/payments/1/refunds`, { headers, body: {} });
    expect(refund.status).toBe(403);

    const paid = await gw.call('POST', `/payments/h2h/${id}`, { headers, body: h2hCard(CARDS.visa) });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', paymentRequestId: id });
    expect(paid.headers.get('access-control-allow-origin')).toBe(new URL(gw.config.checkoutUrl).origin);
    expect(await request(id)).toMatchObject({ status: 'paid' });
  });
});

describe('OpenAPI', () => {
  it('documents every payment route with its problem-record errors, declines included', async () => {
    const doc = (await gw.call('GET', '/openapi.json')).body;
    for (const [method, path] of [
      ['post', '/payments/h2h/{id}'],
      ['post', '/payments/creditCard/acme/{id}'],
      ['post', '/payments/creditCard/globex/{id}'],
      ['get', '/payments/{paymentId}'],
      ['get', '/payments'],
      ['post', '/payments/{paymentId}/capture'],
      ['post', '/payments/{paymentId}/cancel'],
      ['post', '/payments/{paymentId}/refunds'],
    ]) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.responses['200']).toBeDefined();
      if (path.includes('{')) expect(operation.responses['404'].content['application/problem+json']).toBeDefined();
      expect(operation.responses['400'].content['application/problem+json']).toBeDefined();
      expect(operation.responses['401'].content['application/json']).toBeDefined();
    }
    const h2h = doc.paths['/payments/h2h/{id}'].post;
    expect(h2h.responses['402'].content['application/problem+json']).toBeDefined();
    expect(h2h.responses['502']).toBeDefined();
    expect(h2h.security).toEqual([{ ApiKey: [] }, { CheckoutToken: [] }]);
    // The spec's three body variants, each with its own required fields, and the UPI intent (no upiId needed).
    const variants = dereference(doc, h2h.requestBody.content['application/json'].schema).anyOf;
    expect(
      variants.map((v: { required: string[] }) =>
        ['number', 'token', 'upiId', 'upiFlow'].find((f) => v.required.includes(f)),
      ),
    ).toEqual(['number', 'token', 'upiId', 'upiFlow']);
    expect(variants[3].required).not.toContain('upiId');
  });
});

describe('the compact status of a payment request', () => {
  it('names the last payment attempt, with its decline code', async () => {
    const { id, res } = await pay('acme', CARDS.insufficientFunds);
    const declined = await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey });
    expect(declined.body).toEqual({
      paymentRequestId: id,
      status: 'open',
      amount: 10.5,
      unit: 'EUR',
      referenceId: expect.any(String),
      lastPayment: { paymentId: res.body.paymentId, status: 'failed', declineCode: '51' },
    });
    const paid = await gw.call('POST', PATHS.acme(id), { apiKey: m.apiKey, body: card(CARDS.visa) });
    const after = await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey });
    expect(after.body).toMatchObject({
      status: 'paid',
      lastPayment: { paymentId: paid.body.paymentId, status: 'succeeded', declineCode: null },
    });
  });
});

describe('merchant account status', () => {
  it('a restricted merchant cannot pay, capture, void or refund, but still reads', async () => {
    const restricted = await gw.merchant();
    const id = await createRequest(gw, restricted);
    const open = await createRequest(gw, restricted);
    const paid = await gw.call('POST', PATHS.acme(id), {
      apiKey: restricted.apiKey,
      body: { ...card(CARDS.visa), captureDelayHours: 1 },
    });
    await setMerchantStatus({ db: gw.db }, { merchantId: restricted.merchantId, status: 'restricted' });

    const next = await gw.call('POST', PATHS.acme(open), { apiKey: restricted.apiKey, body: card(CARDS.visa) });
    expect(next.status).toBe(403);
    expect(next.body).toMatchObject({ error: 'INSUFFICIENT_PERMISSIONS', code: 'INSUFFICIENT_PERMISSIONS' });
    for (const action of ['capture', 'cancel', 'refunds']) {
      const res = await gw.call('POST', `/payments/${paid.body.paymentId}/${action}`, {
        apiKey: restricted.apiKey,
        body: {},
      });
      expect(res.status, action).toBe(403);
    }
    expect((await gw.call('GET', `/payments/${paid.body.paymentId}`, { apiKey: restricted.apiKey })).body.status).toBe(
      'authorized',
    );
  });
});
