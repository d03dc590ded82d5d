import { describe, expect, it } from 'vitest';
import { reference, useHarness, until } from './harness.js';

// A short lifetime so an unanswered intent expires within the test (the sandbox's own clock).
const h = useHarness({ upiCollectTtlSeconds: 1 });

function intent(ref = reference(), amount = 49900, currency = 'INR') {
  return h.call('POST', '/upi/v1/intent', { reference: ref, amount, currency });
}

/** The payer's "UPI app" answering on the sandbox payer page. */
function decide(payerUrl: string, decision: 'approve' | 'decline') {
  return fetch(payerUrl, { method: 'POST', body: new URLSearchParams({ decision }) });
}

describe('UPI intent', () => {
  it('answers pending with the upi://pay link (payee, amount in major units, currency, reference) and the payer page', async () => {
    const ref = reference();
    const res = await intent(ref);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^upi_[0-9a-f]+$/),
      status: 'pending',
      intentUrl: `upi://pay?pa=svcgateway%40sandbox&pn=SVC%20Sandbox%20Merchant&am=499.00&cu=INR&tr=${ref}`,
      payerUrl: `${h.sandbox.url}/upi-payer/${res.body.id}`,
      expiresAt: expect.any(String),
    });
    const page = await fetch(res.body.payerUrl);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toMatch(/<button[^>]*>Approve<\/button>/);
    expect(html).toMatch(/<button[^>]*>Decline<\/button>/);
    expect(html).toContain('INR 499.00');
    expect(h.receiver.for(res.body.id)).toEqual([]);
  });

  it('a currency without minor units keeps none in the link', async () => {
    const res = await intent(reference(), 500, 'JPY');
    expect(res.body.intentUrl).toContain('&am=500&cu=JPY&');
  });

  it('approve on the payer page: success by a signed callback to /callbacks/svc, once', async () => {
    const ref = reference();
    const res = await intent(ref);
    expect((await decide(res.body.payerUrl, 'approve')).status).toBe(200);
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.path).toBe('/callbacks/svc');
    expect(callback.signatureValid).toBe(true);
    expect(callback.body).toMatchObject({
      status: 'success',
      amount: 49900,
      currency: 'INR',
      providerData: { reference: ref },
    });
    // A second answer changes nothing and sends nothing.
    expect(await (await decide(res.body.payerUrl, 'decline')).text()).toContain('Payment approved.');
    expect((await h.call('GET', `/upi/v1/collect?reference=${ref}`)).body).toMatchObject({
      flow: 'intent',
      status: 'success',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.receiver.for(res.body.id)).toHaveLength(1);
  });

  it('decline on the payer page: failed with U69', async () => {
    const res = await intent();
    await decide(res.body.payerUrl, 'decline');
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.body).toMatchObject({ status: 'failed', providerData: { upiResponse: 'U69' } });
  });

  it('X-Sandbox-Callback given with the intent applies to the payer page answer', async () => {
    const ref = reference();
    const res = await h.call(
      'POST',
      '/upi/v1/intent',
      { reference: ref, amount: 100, currency: 'INR' },
      { 'x-sandbox-callback': 'duplicate' },
    );
    await decide(res.body.payerUrl, 'approve');
    const [first, second] = await h.receiver.waitFor(res.body.id, 2);
    expect(second.body.eventId).toBe(first.body.eventId);
  });

  it('unanswered, it expires after the TTL; the payer page then settles nothing', async () => {
    const res = await intent();
    await until(async () => (await h.call('GET', `/upi/v1/collect/${res.body.id}`)).body.status === 'expired', 2000);
    expect(await (await decide(res.body.payerUrl, 'approve')).text()).toContain('expired');
    expect(h.receiver.for(res.body.id)).toEqual([]);
  });

  it('the same reference again returns the first intent', async () => {
    const ref = reference();
    expect((await intent(ref)).body).toEqual((await intent(ref)).body);
  });

  it('the payer page answers 404 for an unknown intent and for a collect', async () => {
    expect((await fetch(`${h.sandbox.url}/upi-payer/upi_unknown`)).status).toBe(404);
    const collect = await h.call('POST', '/upi/v1/collect', {
      reference: reference(),
      amount: 100,
      currency: 'INR',
      upiId: 'timeout@upi',
    });
    expect((await fetch(`${h.sandbox.url}/upi-payer/${collect.body.id}`)).status).toBe(404);
  });
});
