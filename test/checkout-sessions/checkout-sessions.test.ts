import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { createRequest, expectErrorGuide, inSeconds, mintToken } from '../payment-requests/fixtures.js';
import { setMerchantStatus } from '../../src/modules/merchants/index.js';

const gw = useGateway();

const mintPath = (id: number) => `/payment-requests/${id}/checkout-session`;
const readWithToken = (id: number, token: string) =>
  gw.call('GET', `/payment-requests/${id}`, { headers: { 'x-checkout-token': token } });

describe('POST /payment-requests/{paymentRequestId}/checkout-session', () => {
  it('mints an opaque token bound to the request, valid for 900 seconds', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const res = await gw.call('POST', mintPath(request.paymentRequestId), { apiKey: m.apiKey, body: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^cst_[0-9A-Za-z]{32}$/),
      paymentRequestId: request.paymentRequestId,
      expiresAt: inSeconds(gw, 900),
      ttlSeconds: 900,
    });
  });

  it('accepts a call without a body, and the spec content type', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    expect((await gw.call('POST', mintPath(request.paymentRequestId), { apiKey: m.apiKey })).status).toBe(200);
    const patch = await gw.call('POST', mintPath(request.paymentRequestId), {
      apiKey: m.apiKey,
      body: {},
      contentType: 'application/json-patch+json',
    });
    expect(patch.status).toBe(200);
  });

  it.each([
    ["curl -d '{}' (a form type)", 'application/x-www-form-urlencoded', '{}'],
    ['an empty form body', 'application/x-www-form-urlencoded', ''],
    ['text/plain {}', 'text/plain', '{}'],
    ['text/plain with nothing', 'text/plain;charset=UTF-8', ''],
    ['an odd type with {}', 'application/octet-stream', '{}'],
  ])('mints with %s, as a first curl sends it', async (_name, contentType, body) => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const res = await gw.call('POST', mintPath(request.paymentRequestId), { apiKey: m.apiKey, body, contentType });
    expect(res.status, res.text).toBe(200);
    expect(res.body.token).toMatch(/^cst_/);
  });

  it('mints with a body and no content type at all', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    // A byte body: fetch adds no Content-Type for it.
    const res = await fetch(`${gw.url}${mintPath(request.paymentRequestId)}`, {
      method: 'POST',
      headers: { 'x-api-key': m.apiKey },
      body: new TextEncoder().encode('{}'),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { token: string }).token).toMatch(/^cst_/);
  });

  it('reads any other body as JSON, and refuses one that is not', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const res = await gw.call('POST', mintPath(request.paymentRequestId), {
      apiKey: m.apiKey,
      body: 'a=b',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectErrorGuide(res, 400, 'INVALID_JSON', 'VAL003');
  });

  it('takes a form body on the mint only: every other route keeps its 415 for it', async () => {
    const m = await gw.merchant();
    const form = { apiKey: m.apiKey, body: '{}', contentType: 'application/x-www-form-urlencoded' };
    const minted = await gw.call('POST', mintPath((await createRequest(gw, m.apiKey)).paymentRequestId), form);
    expect(minted.status, minted.text).toBe(200);
    const res = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: 'amount=10&currency=EUR&reference=r',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectErrorGuide(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE');
    const request = await createRequest(gw, m.apiKey);
    const cancel = await gw.call('POST', `/payment-requests/${request.paymentRequestId}/cancel`, {
      apiKey: m.apiKey,
      body: '{}',
      contentType: 'text/plain',
    });
    expectErrorGuide(cancel, 415, 'UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('stores only the SHA-256 of the token, and the token never reaches a log line', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    await readWithToken(request.paymentRequestId, token);
    const rows = await gw.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('payment_request_id', '=', request.paymentRequestId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      merchant_id: m.merchantId,
      livemode: false,
      token_hash: createHash('sha256').update(token).digest('hex'),
    });
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(gw.logs()).not.toContain(token.slice(4));
  });

  it('several tokens of one request are all valid, and all different', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const tokens = [
      await mintToken(gw, m.apiKey, request.paymentRequestId),
      await mintToken(gw, m.apiKey, request.paymentRequestId),
    ];
    expect(new Set(tokens).size).toBe(2);
    for (const token of tokens) expect((await readWithToken(request.paymentRequestId, token)).status).toBe(200);
  });

  it('answers 409 for a request that is not open', async () => {
    const m = await gw.merchant();
    const canceled = await createRequest(gw, m.apiKey);
    await gw.call('POST', `/payment-requests/${canceled.paymentRequestId}/cancel`, { apiKey: m.apiKey });
    const res = await gw.call('POST', mintPath(canceled.paymentRequestId), { apiKey: m.apiKey, body: {} });
    expectErrorGuide(res, 409, 'CONFLICT', 'CONFLICT');
    expect(res.body.details).toEqual({ paymentRequestId: canceled.paymentRequestId, status: 'canceled' });
  });

  it('answers 409 once the request has expired, by the job or merely by the clock', async () => {
    const m = await gw.merchant();
    const byClock = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, 120) });
    const byJob = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, 60) });
    gw.clock.advance(60);
    await gw.runJobs();
    gw.clock.advance(60);
    for (const request of [byJob, byClock]) {
      const res = await gw.call('POST', mintPath(request.paymentRequestId), { apiKey: m.apiKey, body: {} });
      expectErrorGuide(res, 409, 'CONFLICT', 'CONFLICT');
      expect(res.body.details.status).toBe('expired');
    }
  });

  it('answers 404 for an unknown request and 400 for a body that is not an object', async () => {
    const m = await gw.merchant();
    expectErrorGuide(
      await gw.call('POST', mintPath(99999999), { apiKey: m.apiKey, body: {} }),
      404,
      'NOT_FOUND',
      'NOT_FOUND',
    );
    const request = await createRequest(gw, m.apiKey);
    expect((await gw.call('POST', mintPath(request.paymentRequestId), { apiKey: m.apiKey, body: [] })).status).toBe(
      400,
    );
  });

  it('a live key mints a live token that reads its live request', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const request = await createRequest(gw, m.liveKey!);
    const token = await mintToken(gw, m.liveKey!, request.paymentRequestId);
    const res = await readWithToken(request.paymentRequestId, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ paymentRequestId: request.paymentRequestId, livemode: true });
    expect(
      (
        await gw.db
          .selectFrom('checkout_sessions')
          .select('livemode')
          .where('payment_request_id', '=', request.paymentRequestId)
          .executeTakeFirstOrThrow()
      ).livemode,
    ).toBe(true);
  });
});

describe('using a checkout session token', () => {
  it('reads its payment request as the API key does, less where the merchant wants its notifications', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey, { notifyUrl: 'https://hooks.shop.example/gateway' });
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    const res = await readWithToken(request.paymentRequestId, token);
    expect(res.status).toBe(200);
    const { notifyUrl, ...record } = request;
    expect(notifyUrl).toBe('https://hooks.shop.example/gateway');
    expect(res.body).toEqual(record);
    expect(res.text).not.toContain('hooks.shop.example');
  });

  it('works at 899 seconds and answers 401 AUTH001 from 900 seconds on', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    gw.clock.advance(899);
    expect((await readWithToken(request.paymentRequestId, token)).status).toBe(200);
    gw.clock.advance(1);
    expectErrorGuide(await readWithToken(request.paymentRequestId, token), 401, 'UNAUTHORIZED', 'AUTH001');
    gw.clock.advance(3600);
    expectErrorGuide(await readWithToken(request.paymentRequestId, token), 401, 'UNAUTHORIZED', 'AUTH001');
  });

  it('shows the request canceled after a cancel, while the token lives', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    await gw.call('POST', `/payment-requests/${request.paymentRequestId}/cancel`, { apiKey: m.apiKey });
    expect((await readWithToken(request.paymentRequestId, token)).body.status).toBe('canceled');
  });

  it.each([
    ['unknown', `cst_${'A'.repeat(32)}`],
    ['malformed', 'not-a-token'],
    ['empty', ''],
    ['too long', `cst_${'A'.repeat(300)}`],
    ['an API key', 'svc_test_sk_' + 'A'.repeat(40)],
  ])('answers 401 AUTH001 for an %s token', async (_name, token) => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    expectErrorGuide(await readWithToken(request.paymentRequestId, token), 401, 'UNAUTHORIZED', 'AUTH001');
  });

  it('stops working when the merchant is suspended (403)', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    await setMerchantStatus({ db: gw.db }, { merchantId: m.merchantId, status: 'suspended' });
    expectErrorGuide(
      await readWithToken(request.paymentRequestId, token),
      403,
      'INSUFFICIENT_PERMISSIONS',
      'INSUFFICIENT_PERMISSIONS',
    );
  });
});
