import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { createRequest, mintToken } from '../payment-requests/fixtures.js';

const gw = useGateway();

describe('GET /payment-requests/{id} for the hosted checkout', () => {
  it('names the merchant to the checkout token by its business name, in X-Merchant-Name, and only to it', async () => {
    const m = await gw.merchant();
    const named = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { businessName: 'Café Zürich' } });
    expect(named.status, named.text).toBe(200);
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);

    const withToken = await gw.call('GET', `/payment-requests/${request.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
    });
    expect(withToken.status, withToken.text).toBe(200);
    expect(decodeURIComponent(withToken.headers.get('x-merchant-name') ?? '')).toBe('Café Zürich');

    const withKey = await gw.call('GET', `/payment-requests/${request.paymentRequestId}`, { apiKey: m.apiKey });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('x-merchant-name')).toBeNull();
  });

  it('names no one when the business name is empty: never the account name', async () => {
    const m = await gw.merchant();
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    const read = () =>
      gw.call('GET', `/payment-requests/${request.paymentRequestId}`, { headers: { 'x-checkout-token': token } });

    const never = await read();
    expect(never.status, never.text).toBe(200);
    expect(never.headers.get('x-merchant-name')).toBeNull();

    // Set, then emptied in the settings (the panel sends null for an empty field).
    expect((await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { businessName: 'Shop' } })).status).toBe(
      200,
    );
    expect((await read()).headers.get('x-merchant-name')).toBe('Shop');
    const cleared = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { businessName: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect((await read()).headers.get('x-merchant-name')).toBeNull();
  });

  it("takes the business name of the request's own mode", async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const live = await gw.call('PATCH', '/settings', { apiKey: m.liveKey, body: { businessName: 'Live name' } });
    expect(live.status, live.text).toBe(200);
    const request = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, request.paymentRequestId);
    const read = await gw.call('GET', `/payment-requests/${request.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
    });
    expect(read.headers.get('x-merchant-name')).toBeNull();
  });
});
