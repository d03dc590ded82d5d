import { describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { refuseWrites } from '../helpers/faults.js';
import { PASSWORD, useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest } from '../payments/fixtures.js';
import { teammate } from './fixtures.js';

/**
 * Roles on the server (the panel hides what a role may not do; these prove the gateway refuses it) and
 * the owner's audit log of key rotations, refunds and settings changes, whatever credential made them.
 */
const gw = useGateway();

async function session(email: string) {
  const res = await gw.call('POST', '/auth/session', { body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(200);
  const cookie = res.headers.get('set-cookie')!.split(';')[0];
  const headers = { cookie, 'x-csrf-token': res.body.csrfToken as string };
  return { headers, role: res.body.user.role as string };
}

async function paidPayment(m: TestMerchant): Promise<number> {
  const id = await createRequest(gw, m, 30);
  const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) });
  expect(res.status, res.text).toBe(200);
  return res.body.paymentId;
}

describe('a viewer', () => {
  it('reads, and is refused every change: refund, settings, keys, audit log', async () => {
    const m = await gw.merchant();
    const paymentId = await paidPayment(m);
    const viewer = await teammate(gw, m, 'viewer');
    const s = await session(viewer.email);
    expect(s.role).toBe('viewer');
    expect((await gw.call('GET', `/payments/${paymentId}`, s)).status).toBe(200);
    expect((await gw.call('GET', '/settings', s)).status).toBe(200);
    const refund = await gw.call('POST', `/payments/${paymentId}/refunds`, { ...s, body: { amount: 1 } });
    expectErrorGuide(refund, 'INSUFFICIENT_PERMISSIONS');
    const patch = await gw.call('PATCH', '/settings', { ...s, body: { businessName: 'Viewer was here' } });
    expectErrorGuide(patch, 'INSUFFICIENT_PERMISSIONS');
    expectErrorGuide(await gw.call('PUT', `/users/${viewer.userId}/apikey`, s), 'INSUFFICIENT_PERMISSIONS');
    // The spec's bearer path refuses a viewer too.
    const login = await gw.call('POST', '/auth/login', { body: { email: viewer.email, password: PASSWORD } });
    const bearer = await gw.call('PUT', `/users/${viewer.userId}/apikey`, {
      headers: { authorization: `Bearer ${login.body.accessToken}` },
    });
    expectErrorGuide(bearer, 'INSUFFICIENT_PERMISSIONS');
    expectErrorGuide(await gw.call('GET', '/audit-log', s), 'INSUFFICIENT_PERMISSIONS');
    expect((await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body.amountRefunded).toBe(0);
    // Signing out is not a change of the merchant's.
    expect((await gw.call('DELETE', '/auth/session', s)).status).toBe(200);
  });
});

describe('the audit log', () => {
  it('records key rotations, refunds and settings changes with who made them; only owners read it', async () => {
    const m = await gw.merchant();
    const paymentId = await paidPayment(m);
    const developer = await teammate(gw, m, 'developer');
    const dev = await session(developer.email);
    const rotated = await gw.call('PUT', `/users/${developer.userId}/apikey?mode=test`, dev);
    expect(rotated.status, rotated.text).toBe(200);
    const refundCall = {
      apiKey: m.apiKey,
      body: { amount: 5 },
      headers: { 'X-Idempotency-Key': `audit-${paymentId}` },
    };
    const refund = await gw.call('POST', `/payments/${paymentId}/refunds`, refundCall);
    expect(refund.status, refund.text).toBe(200);
    // Its retry is the same refund, replayed: no second entry.
    const replay = await gw.call('POST', `/payments/${paymentId}/refunds`, refundCall);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await gw.call('PATCH', '/settings', { ...dev, body: { businessName: 'Audited' } })).status).toBe(200);
    // A refused change is no entry.
    await gw.call('POST', `/payments/${paymentId}/refunds`, { apiKey: m.apiKey, body: { amount: 500 } });
    expectErrorGuide(await gw.call('GET', '/audit-log', dev), 'INSUFFICIENT_PERMISSIONS');

    const owner = await session(m.email);
    expect(owner.role).toBe('owner');
    const log = await gw.call('GET', '/audit-log', owner);
    expect(log.status, log.text).toBe(200);
    expect(log.body.data.map((e: any) => [e.action, e.target, e.mode, e.by])).toEqual([
      ['settings.updated', '/settings', 'test', developer.email],
      ['payment.refunded', `/payments/${paymentId}/refunds`, 'test', m.email],
      ['api_key.rotated', `/users/${developer.userId}/apikey`, 'test', developer.email],
    ]);
    // Another merchant's owner sees none of it.
    const other = await gw.merchant();
    expect((await gw.call('GET', '/audit-log', await session(other.email))).body.data).toEqual([]);
  });

  it('commits each entry with its change: a change whose entry cannot be written is not made', async () => {
    const m = await gw.merchant();
    const paymentId = await paidPayment(m);
    const owner = await session(m.email);
    expect((await gw.call('PATCH', '/settings', { ...owner, body: { businessName: 'Before' } })).status).toBe(200);
    // The database refuses this merchant's audit entries (a full disk, a lost connection would too).
    const lift = await refuseWrites(gw.db, {
      name: 'refuse_audit_entry',
      table: 'audit_log',
      event: 'insert',
      when: `new.merchant_id = ${m.merchantId}`,
      message: 'audit log unavailable',
    });
    try {
      const settings = await gw.call('PATCH', '/settings', { ...owner, body: { businessName: 'After' } });
      expect(settings.status).toBe(500);
      const rotated = await gw.call('PUT', `/users/${m.userId}/apikey?mode=test`, owner);
      expect(rotated.status).toBe(500);
      const refund = await gw.call('POST', `/payments/${paymentId}/refunds`, { apiKey: m.apiKey, body: { amount: 5 } });
      expect(refund.status).toBe(500);
    } finally {
      await lift();
    }
    // Nothing of them happened: the name, the key and the payment are as they were.
    expect((await gw.call('GET', '/settings', owner)).body.businessName).toBe('Before');
    const payment = await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey });
    expect(payment.status, payment.text).toBe(200);
    expect(payment.body.amountRefunded).toBe(0);
    expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);
    expect((await gw.call('GET', '/audit-log', owner)).body.data.map((e: any) => e.action)).toEqual([
      'settings.updated',
    ]);
  });
});
