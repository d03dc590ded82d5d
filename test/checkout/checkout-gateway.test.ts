/**
 * What the hosted checkout gets from the gateway besides its page (docs/decisions.md "3-D Secure return:
 * checkout or merchant" and "Wallet in the hosted checkout"), over HTTP: where a 3-D Secure payer comes
 * back to, the headers the page reads with its token, the wallet setting, the merchant's frame
 * ancestors and the deprecated apiKey parameter's reports. The page itself is driven in Chromium by
 * browser.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { mintToken } from '../payment-requests/fixtures.js';
import { CARDS, createRequest, decideChallenge, h2hCard } from '../payments/fixtures.js';

// A small fixture build stands in for the page (the browser tests build the real one).
const gw = useGateway({ http: { frontEndsDir: fileURLToPath(new URL('../fixtures/front-ends', import.meta.url)) } });
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const URLS = { successUrl: 'https://shop.example/paid', failureUrl: 'https://shop.example/failed' };

/**
 * A 3-D Secure card payment, with the merchant's key (naming the return pages) or the request's checkout
 * token (which may not: the return pages are the payment request's).
 */
async function challenge(caller: 'api' | 'checkout') {
  const created = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 10.5, currency: 'EUR', reference: 'challenge', ...(caller === 'checkout' ? URLS : {}) },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.paymentRequestId as number;
  const token = await mintToken(gw, m.apiKey, id);
  const res = await gw.call('POST', `/payments/h2h/${id}`, {
    ...(caller === 'api' ? { apiKey: m.apiKey } : { headers: { 'x-checkout-token': token } }),
    body: { ...h2hCard(CARDS.challengeApprove), ...(caller === 'api' ? URLS : {}) },
  });
  expect(res.status, res.text).toBe(200);
  expect(res.body.status).toBe('requires_action');
  return { id, token, paymentId: res.body.paymentId as number, redirectUrl: res.body.redirectUrl as string };
}

const decide = async (redirectUrl: string, decision: 'approve' | 'deny') =>
  (await decideChallenge(gw, redirectUrl, decision)).landing;

const asCheckout = (id: number, token: string) =>
  gw.call('GET', `/payment-requests/${id}`, { headers: { 'x-checkout-token': token } });

describe('the 3-D Secure return', () => {
  for (const decision of ['approve', 'deny'] as const) {
    it(`sends a payment the checkout started back into the checkout, naming it (${decision})`, async () => {
      const { id, token, paymentId, redirectUrl } = await challenge('checkout');
      const landing = await decide(redirectUrl, decision);
      expect(landing.status).toBe(303);
      // Not the successUrl / failureUrl the payment carries: the checkout shows the outcome and follows them.
      expect(landing.headers.get('location')).toBe(
        `${gw.config.checkoutUrl}/main?requestId=${id}&paymentId=${paymentId}`,
      );
      // The outcome the page reports is the gateway's, read with its token.
      const view = await asCheckout(id, token);
      expect(view.status).toBe(200);
      expect(view.headers.get('x-last-payment-id')).toBe(String(paymentId));
      expect(view.headers.get('x-last-payment-status')).toBe(decision === 'approve' ? 'succeeded' : 'failed');
    });
  }

  it('still sends a host-to-host payment to its successUrl with the ids and status', async () => {
    const { id, paymentId, redirectUrl } = await challenge('api');
    const landing = await decide(redirectUrl, 'approve');
    expect(landing.status).toBe(303);
    expect(landing.headers.get('location')).toBe(
      `${URLS.successUrl}?paymentRequestId=${id}&paymentId=${paymentId}&status=succeeded`,
    );
  });

  it('a forged return link is 404 and names no page', async () => {
    const { paymentId } = await challenge('checkout');
    const res = await fetch(`${gw.url}/payments/${paymentId}/return?signature=${'a'.repeat(64)}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('location')).toBeNull();
  });

  it('the relayed ACS page may be framed by the checkout in any merchant page; the API still may not', async () => {
    const { redirectUrl } = await challenge('checkout');
    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(page.headers.get('x-frame-options')).toBeNull();
    const api = await gw.call('GET', '/ping');
    expect(api.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('what the checkout reads with its token', () => {
  it('has no last payment before the first attempt, and no wallet until the merchant enables it', async () => {
    const merchant = await gw.merchant();
    const id = await createRequest(gw, merchant);
    const token = await mintToken(gw, merchant.apiKey, id);
    const before = await asCheckout(id, token);
    expect(before.headers.get('x-last-payment-id')).toBeNull();
    expect(before.headers.get('x-wallet-enabled')).toBe('false');

    const on = await gw.call('PATCH', '/settings', { apiKey: merchant.apiKey, body: { walletEnabled: true } });
    expect(on.status, on.text).toBe(200);
    expect(on.body.walletEnabled).toBe(true);
    expect((await gw.call('GET', '/settings', { apiKey: merchant.apiKey })).body.walletEnabled).toBe(true);
    expect((await asCheckout(id, token)).headers.get('x-wallet-enabled')).toBe('true');
    // The API key's answer stays the record alone; the token's is the same record without the merchant's notifyUrl.
    const withKey = await gw.call('GET', `/payment-requests/${id}`, { apiKey: merchant.apiKey });
    expect(withKey.headers.get('x-wallet-enabled')).toBeNull();
    const { notifyUrl, ...record } = withKey.body;
    expect(notifyUrl).toBeNull();
    expect(before.body).not.toHaveProperty('notifyUrl');
    expect(record).toEqual(before.body);
  });

  it('refuses a walletEnabled that is not a boolean', async () => {
    const res = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { walletEnabled: 'yes' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VAL002');
  });
});

describe("the checkout page's frame ancestors", () => {
  const frameAncestors = async (id: number) => {
    const res = await gw.call('GET', `/checkout/main?requestId=${id}`);
    expect(res.status).toBe(200);
    return res.headers.get('content-security-policy')!.split('frame-ancestors ')[1].split(' ');
  };

  it("are the gateway's origin, plus the origins the request's merchant allows in its settings", async () => {
    const gateway = new URL(gw.config.publicUrl).origin;
    const merchant = await gw.merchant();
    const other = await gw.merchant();
    const id = await createRequest(gw, merchant);
    const othersId = await createRequest(gw, other);
    expect(await frameAncestors(id)).toEqual([gateway]);
    const set = await gw.call('PATCH', '/settings', {
      apiKey: merchant.apiKey,
      body: { checkoutOrigins: ['https://shop.example', 'http://localhost:3000'] },
    });
    expect(set.status, set.text).toBe(200);
    expect(await frameAncestors(id)).toEqual([gateway, 'https://shop.example', 'http://localhost:3000']);
    // Another merchant's request, or none, gets none of them.
    expect(await frameAncestors(othersId)).toEqual([gateway]);
    expect(await frameAncestors(0)).toEqual([gateway]);
  });
});

describe('the deprecated apiKey parameter', () => {
  it('flags the key and reports it once a day: api_key.exposed and api.version.deprecated', async () => {
    const merchant = await gw.merchant();
    const id = await createRequest(gw, merchant);
    const answers: Response[] = [];
    for (let load = 0; load < 2; load++) {
      const res = await fetch(`${gw.url}/checkout/main?requestId=${id}&apiKey=${merchant.apiKey}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).not.toContain(merchant.apiKey);
      answers.push(res);
    }
    const events = async (type: string) =>
      (await gw.call('GET', `/events?type=${type}`, { apiKey: merchant.apiKey })).body.data;
    const [exposed] = await events('api_key.exposed');
    expect(await events('api_key.exposed')).toHaveLength(1);
    expect(exposed.data.object).toMatchObject({ mode: 'test', keyId: expect.any(Number) });
    const deprecated = await events('api.version.deprecated');
    expect(deprecated).toHaveLength(1);
    expect(deprecated[0].data.object.feature).toBe('checkout-api-key-parameter');
    // The answer's Deprecation (RFC 9745) and Sunset (RFC 8594) headers name the same dates as the event.
    const { deprecatedAt, sunsetAt } = deprecated[0].data.object;
    expect(answers[0].headers.get('deprecation')).toBe(`@${Date.parse(deprecatedAt) / 1000}`);
    expect(Date.parse(answers[0].headers.get('sunset')!)).toBe(Date.parse(sunsetAt));
    expect(gw.logs()).not.toContain(merchant.apiKey);
  });

  it('still flags a key whose exchange fails (the request is no longer open)', async () => {
    const merchant = await gw.merchant();
    const id = await createRequest(gw, merchant);
    expect((await gw.call('POST', `/payment-requests/${id}/cancel`, { apiKey: merchant.apiKey })).status).toBe(200);
    const res = await fetch(`${gw.url}/checkout/main?requestId=${id}&apiKey=${merchant.apiKey}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).not.toContain('token=');
    const [key] = await gw.db
      .selectFrom('api_keys')
      .select('exposed_at')
      .where('user_id', '=', merchant.userId)
      .execute();
    expect(key.exposed_at).toBeInstanceOf(Date);
  });
});
