import { describe, expect, it } from 'vitest';
import { cardRequest, useHarness } from './harness.js';

const h = useHarness();

/** The payer's browser submitting one of the ACS page's forms. */
function decide(challengeUrl: string, decision: 'approve' | 'deny') {
  return fetch(challengeUrl, { method: 'POST', body: new URLSearchParams({ decision }), redirect: 'manual' });
}

/** A challenged card payment; on globex the challenge URL comes with the requires_action callback. */
async function challenged(processor: 'acme' | 'globex', number: string, overrides: Record<string, unknown> = {}) {
  const returnUrl = `https://gateway.example/3ds-return?paymentId=${Math.random().toString(36).slice(2)}`;
  const request = cardRequest(number, { threeDS: { returnUrl }, ...overrides });
  const res = await h.call('POST', `/${processor}/v1/payments`, request);
  if (processor === 'acme')
    return { id: res.body.id as string, challengeUrl: res.body.challengeUrl as string, request, returnUrl };
  const [callback] = await h.receiver.waitFor(res.body.id);
  expect(callback.body.status).toBe('requires_action');
  return {
    id: res.body.id as string,
    challengeUrl: callback.body.providerData.challengeUrl as string,
    request,
    returnUrl,
  };
}

function threeDsCallback(id: string) {
  return h.receiver.for(id).filter((r) => r.path === '/callbacks/3ds');
}

describe('the ACS page', () => {
  it('shows Approve and Deny buttons and never the card number', async () => {
    const { challengeUrl } = await challenged('acme', '4000002760003184');
    const page = await fetch(challengeUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toMatch(/<button[^>]*>Approve<\/button>/);
    expect(html).toMatch(/<button[^>]*>Deny<\/button>/);
    expect(html).toContain('name="decision" value="approve"');
    expect(html).toContain('3184');
    expect(html).not.toContain('4000002760003184');
  });

  it('answers 404 for an unknown challenge', async () => {
    expect((await fetch(`${h.sandbox.url}/acs/acs_unknown`)).status).toBe(404);
  });
});

describe.each(['acme', 'globex'] as const)('%s 3-D Secure challenge', (processor) => {
  it('approve: /callbacks/3ds with Y before the 303 to returnUrl, payment approved', async () => {
    const { id, challengeUrl, request, returnUrl } = await challenged(processor, '4000002760003184');
    const res = await decide(challengeUrl, 'approve');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(returnUrl);
    // The sandbox waited for the gateway's answer before redirecting, so it has arrived already.
    const [callback] = threeDsCallback(id);
    expect(callback.signatureValid).toBe(true);
    expect(callback.body).toMatchObject({
      transactionId: id,
      status: 'success',
      amount: 1050,
      currency: 'EUR',
      threeDsResult: 'Y',
      eci: '05',
      authenticationValue: expect.stringMatching(/^[A-Za-z0-9+/=]{20,}$/),
      providerData: { reference: request.reference },
    });
    expect((await h.call('GET', `/${processor}/v1/payments/${id}`)).body).toMatchObject({
      status: 'captured',
      amountCaptured: 1050,
    });
  });

  it('deny: /callbacks/3ds with N and failed, payment declined', async () => {
    const { id, challengeUrl, returnUrl } = await challenged(processor, '4000002760003184');
    const res = await decide(challengeUrl, 'deny');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(returnUrl);
    const [callback] = threeDsCallback(id);
    expect(callback.body).toMatchObject({ transactionId: id, status: 'failed', threeDsResult: 'N' });
    expect((await h.call('GET', `/${processor}/v1/payments/${id}`)).body.status).toBe('declined');
  });

  it('4000008400001629 is declined 05 after an approved challenge', async () => {
    const { id, challengeUrl } = await challenged(processor, '4000008400001629');
    expect((await decide(challengeUrl, 'approve')).status).toBe(303);
    const [callback] = threeDsCallback(id);
    expect(callback.body).toMatchObject({ status: 'failed', threeDsResult: 'Y', providerData: { declineCode: '05' } });
    expect((await h.call('GET', `/${processor}/v1/payments/${id}`)).body).toMatchObject({
      status: 'declined',
      declineCode: '05',
    });
  });

  it('a forced challenge on an approving card, authorize only, approves without capturing', async () => {
    const { id, challengeUrl } = await challenged(processor, '4242424242424242', {
      capture: false,
      threeDS: { force: true, returnUrl: 'https://gateway.example/back' },
    });
    await decide(challengeUrl, 'approve');
    expect(threeDsCallback(id)[0].body.status).toBe('success');
    expect((await h.call('GET', `/${processor}/v1/payments/${id}`)).body).toMatchObject({
      status: 'approved',
      amountCaptured: 0,
    });
  });

  it('a second submission redirects again without a second callback or a change of outcome', async () => {
    const { id, challengeUrl, returnUrl } = await challenged(processor, '4000002760003184');
    await decide(challengeUrl, 'approve');
    const again = await decide(challengeUrl, 'deny');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(returnUrl);
    expect(threeDsCallback(id)).toHaveLength(1);
    expect((await h.call('GET', `/${processor}/v1/payments/${id}`)).body.status).toBe('captured');
    expect(await (await fetch(challengeUrl)).text()).toContain('already been completed');
  });
});

describe('ACS form validation', () => {
  it('refuses a decision other than approve or deny', async () => {
    const { challengeUrl } = await challenged('acme', '4000002760003184');
    const res = await fetch(challengeUrl, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'maybe' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
  });
});
