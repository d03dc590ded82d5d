import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, expectErrorGuide, requestBody, type CreatedRequest } from './fixtures.js';
import { setMerchantStatus } from '../../src/modules/merchants/index.js';

let owner: TestMerchant;
let stranger: TestMerchant;
let testRequest: CreatedRequest;
let liveRequest: CreatedRequest;

const gw = useGateway();
beforeAll(async () => {
  owner = await gw.merchant({ withLiveKey: true });
  stranger = await gw.merchant({ withLiveKey: true });
  testRequest = await createRequest(gw, owner.apiKey, { reference: 'owner-test-secret-ref' });
  liveRequest = await createRequest(gw, owner.liveKey!, { reference: 'owner-live-secret-ref' });
});

/** Every route that addresses one payment request by id. */
const byIdRoutes = (id: number): Array<[string, string, unknown?]> => [
  ['GET', `/payment-requests/${id}`],
  ['GET', `/payment-requests/status/${id}`],
  ['POST', `/payment-requests/${id}/cancel`],
  ['POST', `/payment-requests/${id}/checkout-session`, {}],
];

const stored = (id: number) =>
  gw.db.selectFrom('payment_requests').select(['status']).where('id', '=', id).executeTakeFirstOrThrow();

describe('merchant isolation', () => {
  it("answers 404 (never 403, never data) for another merchant's request on every route", async () => {
    for (const key of [stranger.apiKey, stranger.liveKey!]) {
      for (const request of [testRequest, liveRequest]) {
        for (const [method, path, body] of byIdRoutes(request.paymentRequestId)) {
          const res = await gw.call(method, path, { apiKey: key, body });
          expectErrorGuide(res, 404, 'NOT_FOUND', 'NOT_FOUND');
          expect(res.text).not.toContain(request.reference);
        }
      }
    }
    expect((await stored(testRequest.paymentRequestId)).status).toBe('open');
    expect((await stored(liveRequest.paymentRequestId)).status).toBe('open');
    const sessions = await gw.db.selectFrom('checkout_sessions').select('id').execute();
    expect(sessions).toEqual([]);
  });

  it("never lists another merchant's requests, whatever the filters", async () => {
    const theirs = await createRequest(gw, stranger.apiKey, { reference: 'shared-ref' });
    const mine = await createRequest(gw, owner.apiKey, { reference: 'shared-ref' });
    const res = await gw.call('GET', '/payment-requests?reference=shared-ref', { apiKey: owner.apiKey });
    expect(res.body.data.map((r: any) => r.paymentRequestId)).toEqual([mine.paymentRequestId]);
    const all = await gw.call('GET', '/payment-requests?limit=100', { apiKey: stranger.apiKey });
    expect(all.body.data.map((r: any) => r.paymentRequestId)).toEqual([theirs.paymentRequestId]);
  });
});

describe('test and live mode', () => {
  it('a request belongs to the mode of the key that created it', async () => {
    const live = await gw.call('GET', `/payment-requests/${liveRequest.paymentRequestId}`, { apiKey: owner.liveKey });
    expect(live.body.livemode).toBe(true);
    const test = await gw.call('GET', `/payment-requests/${testRequest.paymentRequestId}`, { apiKey: owner.apiKey });
    expect(test.body.livemode).toBe(false);
  });

  it('a test key cannot reach a live request, nor a live key a test request: 404 on every route', async () => {
    for (const [key, request] of [
      [owner.apiKey, liveRequest],
      [owner.liveKey!, testRequest],
    ] as const) {
      for (const [method, path, body] of byIdRoutes(request.paymentRequestId)) {
        const res = await gw.call(method, path, { apiKey: key, body });
        expectErrorGuide(res, 404, 'NOT_FOUND', 'NOT_FOUND');
        expect(res.text).not.toContain(request.reference);
      }
    }
    expect((await stored(liveRequest.paymentRequestId)).status).toBe('open');
  });

  it('lists only the data of the key mode', async () => {
    const test = await gw.call('GET', '/payment-requests?limit=100', { apiKey: owner.apiKey });
    const live = await gw.call('GET', '/payment-requests?limit=100', { apiKey: owner.liveKey });
    expect(test.body.data.every((r: any) => r.livemode === false)).toBe(true);
    expect(live.body.data.map((r: any) => r.paymentRequestId)).toEqual([liveRequest.paymentRequestId]);
    expect(test.body.data.map((r: any) => r.paymentRequestId)).not.toContain(liveRequest.paymentRequestId);
  });
});

describe('credentials', () => {
  it('every payment request route needs an API key', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/payment-requests', requestBody()],
      ['GET', '/payment-requests'],
      ...byIdRoutes(testRequest.paymentRequestId),
    ];
    for (const [method, path, body] of routes) {
      expectErrorGuide(await gw.call(method, path, { body }), 401, 'INVALID_API_KEY', 'INVALID_API_KEY');
      expectErrorGuide(
        await gw.call(method, path, { body, apiKey: 'svc_test_sk_' + 'x'.repeat(40) }),
        401,
        'INVALID_API_KEY',
        'INVALID_API_KEY',
      );
    }
  });

  it('a suspended merchant gets 403 on every route; a restricted one may still create and read', async () => {
    const suspended = await gw.merchant();
    const request = await createRequest(gw, suspended.apiKey);
    await setMerchantStatus({ db: gw.db }, { merchantId: suspended.merchantId, status: 'suspended' });
    for (const [method, path, body] of [
      ['POST', '/payment-requests', requestBody()],
      ['GET', '/payment-requests'],
      ...byIdRoutes(request.paymentRequestId),
    ] as const) {
      expectErrorGuide(
        await gw.call(method, path, { apiKey: suspended.apiKey, body }),
        403,
        'INSUFFICIENT_PERMISSIONS',
        'INSUFFICIENT_PERMISSIONS',
      );
    }

    const restricted = await gw.merchant({ status: 'restricted' });
    const created = await createRequest(gw, restricted.apiKey);
    expect(
      (await gw.call('GET', `/payment-requests/${created.paymentRequestId}`, { apiKey: restricted.apiKey })).status,
    ).toBe(200);
  });
});
