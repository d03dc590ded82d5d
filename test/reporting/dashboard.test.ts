import { describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway } from '../helpers/gateway.js';
import { insertCustomer } from '../payment-requests/fixtures.js';
import { card, CARDS, createRequest, decideChallenge } from '../payments/fixtures.js';

/** GET /reports/dashboard and GET /customers/{id}/summary (docs/reporting.md). */
const gw = useGateway({ env: { RATE_LIMIT_MAX: '1000000' } });

async function pay(apiKey: string, amount: number, currency: string, number: string, customerId?: number) {
  const req = await gw.call('POST', '/payment-requests', {
    apiKey,
    body: { amount, currency, reference: `r-${amount}-${number}`, ...(customerId ? { customerId } : {}) },
  });
  expect(req.status, req.text).toBe(200);
  const res = await gw.call('POST', `/payments/creditCard/acme/${req.body.paymentRequestId}`, {
    apiKey,
    body: card(number),
  });
  expect([200, 402], res.text).toContain(res.status);
  return req.body.paymentRequestId as number;
}

describe('GET /reports/dashboard', () => {
  it('counts and sums per UTC day and currency, with the approval rate and top decline reasons', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    gw.clock.set(new Date('2026-04-01T23:30:00Z'));
    await pay(m.apiKey, 10.5, 'EUR', CARDS.visa);
    await pay(m.apiKey, 1000, 'JPY', CARDS.visa);
    await pay(m.apiKey, 7, 'EUR', CARDS.doNotHonor);
    gw.clock.set(new Date('2026-04-02T00:30:00Z'));
    await pay(m.apiKey, 2.25, 'EUR', CARDS.visa);
    await pay(m.apiKey, 3, 'EUR', CARDS.insufficientFunds);
    await pay(m.apiKey, 4, 'EUR', CARDS.doNotHonor);
    // Another merchant's payments and the live mode's are not in it.
    const other = await gw.merchant();
    await pay(other.apiKey, 99, 'EUR', CARDS.visa);

    const res = await gw.call('GET', '/reports/dashboard?from=2026-04-01&to=2026-04-02', { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      from: '2026-04-01',
      to: '2026-04-02',
      livemode: false,
      days: [
        { day: '2026-04-01', currency: 'EUR', count: 2, approved: 1, declined: 1, volume: 10.5, volumeMinor: 1050 },
        { day: '2026-04-01', currency: 'JPY', count: 1, approved: 1, declined: 0, volume: 1000, volumeMinor: 1000 },
        { day: '2026-04-02', currency: 'EUR', count: 3, approved: 1, declined: 2, volume: 2.25, volumeMinor: 225 },
      ],
      approval: { approved: 3, declined: 3, rate: 0.5 },
      topDeclineReasons: [
        { declineCode: '05', declineReason: expect.any(String), count: 2 },
        { declineCode: '51', declineReason: expect.any(String), count: 1 },
      ],
    });
    const oneDay = await gw.call('GET', '/reports/dashboard?from=2026-04-02&to=2026-04-02', { apiKey: m.apiKey });
    expect(oneDay.body.approval).toEqual({ approved: 1, declined: 2, rate: 1 / 3 });
    // Default: the 30 days up to today (the gateway's clock).
    const byDefault = await gw.call('GET', '/reports/dashboard', { apiKey: m.apiKey });
    expect(byDefault.body).toMatchObject({ from: '2026-03-04', to: '2026-04-02' });
    expect(byDefault.body.days).toHaveLength(3);
    const live = await gw.call('GET', '/reports/dashboard?from=2026-04-01&to=2026-04-02', { apiKey: m.liveKey! });
    expect(live.body).toMatchObject({ livemode: true, days: [], approval: { approved: 0, declined: 0, rate: null } });
  });

  it('counts every decline by its reason, a 3-D Secure denial as "3-D Secure failed", as many as it declares declined', async () => {
    const m = await gw.merchant();
    gw.clock.set(new Date('2026-05-10T10:00:00Z'));
    await pay(m.apiKey, 8, 'EUR', CARDS.doNotHonor);
    for (const amount of [9, 11]) {
      const id = await createRequest(gw, m, amount);
      const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
        apiKey: m.apiKey,
        body: card(CARDS.challengeApprove),
      });
      expect(res.body.status, res.text).toBe('requires_action');
      await decideChallenge(gw, res.body.redirectUrl, 'deny');
    }
    await pay(m.apiKey, 499, 'INR', CARDS.visa);
    const res = await gw.call('GET', '/reports/dashboard?from=2026-05-10&to=2026-05-10', { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.approval).toEqual({ approved: 1, declined: 3, rate: 0.25 });
    expect(res.body.topDeclineReasons).toEqual([
      { declineCode: 'threeds_failed', declineReason: '3-D Secure failed', count: 2 },
      { declineCode: '05', declineReason: expect.any(String), count: 1 },
    ]);
    const reasons = res.body.topDeclineReasons.reduce((sum: number, r: { count: number }) => sum + r.count, 0);
    expect(reasons).toBe(res.body.approval.declined);
  });

  it.each([
    ['from=2026-04-02&to=2026-04-01', 'from'],
    ['from=2025-01-01&to=2026-04-01', 'from'],
    ['from=yesterday', 'from'],
    ['to=2026-13-01', 'to'],
  ])('refuses %s (400)', async (query, field) => {
    const m = await gw.merchant();
    const res = await gw.call('GET', `/reports/dashboard?${query}`, { apiKey: m.apiKey });
    expectErrorGuide(res, 'INVALID_FORMAT');
    expect(res.body.details.field).toBe(field);
  });
});

describe('GET /customers/{id}/summary', () => {
  it('counts and sums the customer’s payment requests per currency and status', async () => {
    const m = await gw.merchant();
    const customerId = await insertCustomer(gw, m);
    await pay(m.apiKey, 10, 'EUR', CARDS.visa, customerId);
    await pay(m.apiKey, 5.5, 'EUR', CARDS.doNotHonor, customerId);
    await pay(m.apiKey, 300, 'JPY', CARDS.visa, customerId);
    await pay(m.apiKey, 1, 'EUR', CARDS.visa); // no customer
    const res = await gw.call('GET', `/customers/${customerId}/summary`, { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body.customer).toMatchObject({ id: customerId, totalDeposits: 310 });
    expect(res.body.totals).toEqual([
      {
        currency: 'EUR',
        count: 2,
        countByStatus: { paid: 1, open: 1 },
        amount: 15.5,
        amountPaid: 10,
        amountRefunded: 0,
        net: 10,
      },
      {
        currency: 'JPY',
        count: 1,
        countByStatus: { paid: 1 },
        amount: 300,
        amountPaid: 300,
        amountRefunded: 0,
        net: 300,
      },
    ]);
    expect(res.body.paymentRequests).toBe(`/payment-requests?customerId=${customerId}`);
    const other = await gw.merchant();
    expect((await gw.call('GET', `/customers/${customerId}/summary`, { apiKey: other.apiKey })).status).toBe(404);
  });
});
