import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { card, CARDS, createRequest, payer, walletPayment } from '../payments/fixtures.js';
import { csvRecords } from './csv.js';

/**
 * What a merchant works from in the payments list (docs/reporting.md): the payer, the card (or UPI id,
 * wallet), what the refunds took, and the search by payer e-mail and card last 4, on the list and its export.
 */
const gw = useGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
let m: TestMerchant;
const paid: Record<string, { requestId: number; paymentId: number }> = {};

async function payByCard(name: string, number: string, who: { name: string; email: string }, reference?: string) {
  const res0 = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 20, currency: 'EUR', reference: reference ?? `search-${name}` },
  });
  const requestId = res0.body.paymentRequestId as number;
  const res = await gw.call('POST', `/payments/creditCard/acme/${requestId}`, {
    apiKey: m.apiKey,
    body: { ...card(number), ...who },
  });
  expect(res.status, res.text).toBe(200);
  paid[name] = { requestId, paymentId: res.body.paymentId };
  gw.clock.advance(3600);
}

const get = (path: string) => gw.call('GET', path, { apiKey: m.apiKey });
const ids = async (query: string) => {
  const res = await get(`/payments?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((p: { paymentId: number }) => p.paymentId);
};

beforeAll(async () => {
  m = await gw.merchant();
  await payByCard('ada', CARDS.visa, { name: 'Ada Lovelace', email: 'Ada@Example.com' }, 'order-ada');
  await payByCard('ada2', CARDS.mastercard, { name: 'Ada Lovelace', email: 'ada@example.com' });
  await payByCard('bob', CARDS.visa, { name: 'Bob Builder', email: 'bob@example.com' });
  // Another merchant's payer with the same address and card never shows.
  const other = await gw.merchant();
  const otherRequest = await createRequest(gw, other, 20);
  await gw.call('POST', `/payments/creditCard/acme/${otherRequest}`, {
    apiKey: other.apiKey,
    body: { ...card(CARDS.visa), name: 'Ada Lovelace', email: 'ada@example.com' },
  });
});

describe('the payment as the lists show it', () => {
  it('names the payer, the card by brand and last 4, and what the refunds took of the captured amount', async () => {
    const { paymentId } = paid.bob;
    const read = async () => (await get(`/payments/${paymentId}`)).body;
    expect(await read()).toMatchObject({
      method: 'card',
      payer: { name: 'Bob Builder', email: 'bob@example.com' },
      card: { brand: 'visa', last4: '4242' },
      upiId: null,
      walletType: null,
      amountCaptured: 20,
      amountRefunded: 0,
      refundStatus: 'none',
    });
    await gw.call('POST', `/payments/${paymentId}/refunds`, { apiKey: m.apiKey, body: { amount: 5 } });
    expect(await read()).toMatchObject({ status: 'succeeded', amountRefunded: 5, refundStatus: 'partially_refunded' });
    await gw.call('POST', `/payments/${paymentId}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(await read()).toMatchObject({ status: 'succeeded', amountRefunded: 20, refundStatus: 'refunded' });
    const listed = (await get(`/payments?paymentRequestId=${paid.bob.requestId}`)).body.data[0];
    expect(listed).toMatchObject({ paymentId, refundStatus: 'refunded', payer: { email: 'bob@example.com' } });
  });

  it("names a UPI payment's UPI id and a wallet payment's wallet", async () => {
    const upiRequest = await createRequest(gw, m, 499, 'INR');
    const upi = await gw.call('POST', `/payments/h2h/${upiRequest}`, {
      apiKey: m.apiKey,
      body: { ...payer, amount: 499, unit: 'INR', upiId: 'jane@okaxis' },
    });
    expect(upi.status, upi.text).toBe(200);
    expect(upi.body).toMatchObject({ method: 'upi', upiId: 'jane@okaxis', walletType: null, card: null });
    const walletRequest = await createRequest(gw, m);
    const wallet = await gw.call('POST', `/payments/wallet/${walletRequest}`, {
      apiKey: m.apiKey,
      body: walletPayment('tok_search_ok', 'A'),
    });
    expect(wallet.status, wallet.text).toBe(200);
    expect((await get(`/payments/${wallet.body.paymentId}`)).body).toMatchObject({
      method: 'wallet',
      walletType: 'applepay',
      upiId: null,
      payer: { name: payer.name, email: payer.email },
    });
  });
});

describe('GET /payments search', () => {
  it("by the payer's e-mail, exactly but in any case, newest first", async () => {
    const ada = [paid.ada2.paymentId, paid.ada.paymentId];
    expect(await ids('payerEmail=ada@example.com')).toEqual(ada);
    expect(await ids('payerEmail=ADA%40EXAMPLE.COM')).toEqual(ada);
    expect(await ids('payerEmail=ada@example')).toEqual([]);
    expect(await ids('payerEmail=bob@example.com&status=succeeded')).toEqual([paid.bob.paymentId]);
  });

  it('by card last 4, with the e-mail, the reference or a date range of at most 31 days', async () => {
    expect(await ids('payerEmail=ada@example.com&cardLast4=4444')).toEqual([paid.ada2.paymentId]);
    expect(await ids('reference=order-ada&cardLast4=4242')).toEqual([paid.ada.paymentId]);
    expect(await ids('reference=order-ada&cardLast4=4444')).toEqual([]);
    const from = new Date(gw.clock.now().getTime() - 31 * 86_400_000).toISOString();
    expect(await ids(`cardLast4=4242&createdFrom=${from}`)).toEqual([paid.bob.paymentId, paid.ada.paymentId]);
  });

  it.each([
    ['cardLast4=4242', 'createdFrom'],
    ['cardLast4=4242&createdFrom=2026-01-01T00:00:00Z', 'createdFrom'],
    ['cardLast4=4242&createdFrom=2026-01-01T00:00:00Z&createdTo=2026-02-01T00:00:01Z', 'createdFrom'],
  ])('refuses last 4 alone over more than 31 days: %s (400 VALIDATION_ERROR problem)', async (query, field) => {
    for (const path of ['/payments', '/payments/export/csv']) {
      const res = await get(`${path}?${query}`);
      expectProblem(res, 'VALIDATION_ERROR');
      expect(res.body.details.field).toBe(field);
      expect(res.body.detail).toContain('cardLast4 needs');
    }
  });

  it.each(['cardLast4=424', 'cardLast4=42424', 'cardLast4=abcd', `payerEmail=${'a'.repeat(101)}`, 'payerEmail='])(
    'validates %s by the schema (400)',
    async (query) => {
      const res = await get(`/payments?${query}`);
      expect(res.status, res.text).toBe(400);
    },
  );

  it('exports the same search as CSV, with the payer, card and refund columns', async () => {
    const res = await get('/payments/export/csv?payerEmail=Ada@example.com');
    expect(res.status, res.text).toBe(200);
    const rows = csvRecords(res.text);
    expect(rows.map((row) => Number(row.paymentId))).toEqual([paid.ada2.paymentId, paid.ada.paymentId]);
    expect(rows[1]).toMatchObject({
      refundStatus: 'none',
      payerName: 'Ada Lovelace',
      payerEmail: 'Ada@Example.com',
      cardBrand: 'visa',
      cardLast4: '4242',
      upiId: '',
      walletType: '',
    });
    const byCard = csvRecords((await get('/payments/export/csv?payerEmail=ada@example.com&cardLast4=4444')).text);
    expect(byCard.map((row) => Number(row.paymentId))).toEqual([paid.ada2.paymentId]);
  });

  it('documents the search in the OpenAPI document', async () => {
    const doc = (await gw.call('GET', '/openapi.json')).body;
    for (const path of ['/payments', '/payments/export/csv']) {
      const names = doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
      expect(names).toEqual(expect.arrayContaining(['payerEmail', 'cardLast4', 'reference']));
    }
  });
});
