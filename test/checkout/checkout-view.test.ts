import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { createRequest, mintToken } from '../payment-requests/fixtures.js';

const gw = useGateway();

describe('GET /payment-requests/{id} for the hosted checkout', () => {
  it('names the merchant to the checkout token in X-Merchant-Name, and only to it', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    const [merchant] = await gw.db.selectFrom('merchants').select('name').where('id', '=', m.merchantId).execute();

    const withToken = await gw.call('GET', `/payment-requests/${request.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
    });
    expect(withToken.status, withToken.text).toBe(200);
    expect(decodeURIComponent(withToken.headers.get('x-merchant-name') ?? '')).toBe(merchant.name);

    const withKey = await gw.call('GET', `/payment-requests/${request.paymentRequestId}`, { apiKey: m.apiKey });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('x-merchant-name')).toBeNull();
  });
});
