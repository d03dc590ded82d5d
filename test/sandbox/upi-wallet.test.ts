import { describe, expect, it } from 'vitest';
import { reference, useHarness, until } from './harness.js';

// A short collect lifetime so timeout@upi expires within the test (the sandbox's own clock).
const h = useHarness({ upiCollectTtlSeconds: 1 });

function collect(upiId: string, ref = reference()) {
  return h.call('POST', '/upi/v1/collect', { reference: ref, amount: 49900, currency: 'INR', upiId });
}

describe('UPI collect', () => {
  it.each(['success@upi', 'alice.smith@okaxis'])('%s is approved by a callback to /callbacks/svc', async (upiId) => {
    const ref = reference();
    const res = await collect(upiId, ref);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^upi_[0-9a-f]+$/), status: 'pending' });
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.path).toBe('/callbacks/svc');
    expect(callback.signatureValid).toBe(true);
    expect(callback.body).toMatchObject({
      transactionId: res.body.id,
      status: 'success',
      amount: 49900,
      currency: 'INR',
      providerData: { reference: ref },
    });
    expect((await h.call('GET', `/upi/v1/collect/${res.body.id}`)).body).toMatchObject({
      id: res.body.id,
      status: 'success',
    });
  });

  it.each([
    ['pin@upi', 'U30'],
    ['risk@upi', 'U16'],
    ['device@upi', 'U66'],
    ['decline@upi', 'U69'],
  ])('%s fails with %s', async (upiId, upiResponse) => {
    const res = await collect(upiId);
    const [callback] = await h.receiver.waitFor(res.body.id);
    expect(callback.body).toMatchObject({ status: 'failed', providerData: { upiResponse } });
    expect((await h.call('GET', `/upi/v1/collect/${res.body.id}`)).body).toMatchObject({
      status: 'failed',
      upiResponse,
    });
  });

  it('timeout@upi is never answered and expires after the collect TTL', async () => {
    const ref = reference();
    const res = await collect('timeout@upi', ref);
    expect((await h.call('GET', `/upi/v1/collect/${res.body.id}`)).body.status).toBe('pending');
    await until(async () => (await h.call('GET', `/upi/v1/collect/${res.body.id}`)).body.status === 'expired', 2000);
    expect((await h.call('GET', `/upi/v1/collect?reference=${ref}`)).body).toMatchObject({
      id: res.body.id,
      status: 'expired',
    });
    expect(h.receiver.for(res.body.id)).toEqual([]);
  });

  it('refuses an id that is not username@bankcode', async () => {
    const res = await collect('not-an-upi-id');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_upi_id', field: 'upiId' });
  });

  it('the same reference again returns the first collect request', async () => {
    const ref = reference();
    const first = await collect('success@upi', ref);
    const again = await collect('success@upi', ref);
    expect(again.body).toEqual(first.body);
  });

  it('answers 404 for an unknown collect request', async () => {
    expect((await h.call('GET', '/upi/v1/collect/upi_unknown')).body).toMatchObject({ error: 'not_found' });
  });
});

describe('wallet', () => {
  const pay = (token: string, ref = reference()) =>
    h.call('POST', '/wallet/v1/payments', {
      reference: ref,
      amount: 2500,
      currency: 'USD',
      token,
      walletType: 'applepay',
      threeDS: { returnUrl: 'https://gateway.example/wallet-return' },
    });

  it('approves any ordinary token', async () => {
    const res = await pay('tok_wallet_ok');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^wal_[0-9a-f]+$/), status: 'approved' });
    expect(res.body.issuerResponse).toBeUndefined();
  });

  it('declines wallet_decline with issuer response 05', async () => {
    const res = await pay('wallet_decline');
    expect(res.body).toMatchObject({ status: 'declined', issuerResponse: '05', declineReason: 'do not honor' });
  });

  it('challenges wallet_3ds on the ACS, then approves', async () => {
    const res = await pay('wallet_3ds');
    expect(res.body).toMatchObject({ status: 'challenge', challengeUrl: expect.stringContaining('/acs/acs_') });
    const decided = await fetch(res.body.challengeUrl, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'approve' }),
      redirect: 'manual',
    });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toBe('https://gateway.example/wallet-return');
    const [callback] = h.receiver.for(res.body.id);
    expect(callback).toMatchObject({ path: '/callbacks/3ds', body: { status: 'success', threeDsResult: 'Y' } });
    expect((await h.call('GET', `/wallet/v1/payments/${res.body.id}`)).body.status).toBe('captured');
  });

  it('is idempotent by reference and supports refunds', async () => {
    const ref = reference();
    const first = await pay('tok_wallet_ok', ref);
    expect((await pay('tok_wallet_ok', ref)).body).toEqual(first.body);
    const refund = await h.call('POST', `/wallet/v1/payments/${first.body.id}/refunds`, {
      amount: 2500,
      reference: 'rf_wallet_1',
    });
    expect(refund.body.status).toBe('succeeded');
    expect((await h.call('GET', `/wallet/v1/payments?reference=${ref}`)).body).toMatchObject({
      status: 'refunded',
      amountRefunded: 2500,
    });
  });
});
