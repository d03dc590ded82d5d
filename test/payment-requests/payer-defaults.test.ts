/**
 * A payment request's payer defaults (docs/decisions.md "Payer defaults of a payment request"): what the
 * merchant already knows of the payer, from the body's `payer` and the request's customer, kept with the
 * request and answered to its key and to its checkout session token, so the hosted checkout need not ask.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { card } from '../payments/fixtures.js';
import { mintToken, requestBody } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const FULL_PAYER = {
  name: 'Asha Rao',
  email: 'asha@example.com',
  phoneNumber: '919812345678',
  address: '1 MG Road',
  city: 'Bengaluru',
  state: 'KA',
  postalCode: '560001',
  country: 'IN',
};

async function create(body: Record<string, unknown>) {
  const res = await gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body: requestBody(body) });
  expect(res.status, res.text).toBe(200);
  return res.body as { paymentRequestId: number; payer: Record<string, string> };
}

async function customer(body: Record<string, unknown>) {
  const res = await gw.call('POST', '/customers', { apiKey: m.apiKey, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: number; country: string | null };
}

const readWithKey = (id: number) => gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey });
const readWithToken = async (id: number) =>
  gw.call('GET', `/payment-requests/${id}`, { headers: { 'x-checkout-token': await mintToken(gw, m.apiKey, id) } });

describe('POST /payment-requests with payer defaults', () => {
  it('keeps every payer field given and answers them to the key and to the checkout token', async () => {
    const created = await create({ amount: 499, currency: 'INR', reference: 'order-asha', payer: FULL_PAYER });
    expect(created.payer).toEqual(FULL_PAYER);
    const withKey = await readWithKey(created.paymentRequestId);
    expect(withKey.body.payer).toEqual(FULL_PAYER);
    const withToken = await readWithToken(created.paymentRequestId);
    expect(withToken.status, withToken.text).toBe(200);
    expect(withToken.body.payer).toEqual(FULL_PAYER);
    const listed = await gw.call('GET', '/payment-requests?reference=order-asha', { apiKey: m.apiKey });
    expect(listed.body.data.map((r: { payer: unknown }) => r.payer)).toEqual([FULL_PAYER]);
  });

  it('keeps a part of them, and answers an empty payer when none is given', async () => {
    const some = await create({ payer: { email: 'asha@example.com', country: 'IN' } });
    expect(some.payer).toEqual({ email: 'asha@example.com', country: 'IN' });
    const none = await create({});
    expect(none.payer).toEqual({});
    expect((await readWithToken(none.paymentRequestId)).body.payer).toEqual({});
  });

  it("completes them from the request's customer: name, email, phone, address and country", async () => {
    const known = await customer({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '441234567890',
      address: '12 St James Square',
      country: 'GB',
    });
    expect(known.country).toBe('GB');
    const created = await create({ customerId: known.id });
    expect(created.payer).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phoneNumber: '441234567890',
      address: '12 St James Square',
      country: 'GB',
    });
    expect((await readWithToken(created.paymentRequestId)).body.payer).toEqual(created.payer);
  });

  it("lets the body's payer win over the customer's record, and takes nothing from a customer's empty field", async () => {
    const known = await customer({ name: 'Ada Lovelace', email: 'ada@example.com', address: '' });
    const created = await create({
      customerId: known.id,
      payer: { email: 'billing@example.com', city: 'London' },
    });
    expect(created.payer).toEqual({ name: 'Ada Lovelace', email: 'billing@example.com', city: 'London' });
  });

  it('is a snapshot: a later change of the customer leaves the request as created', async () => {
    const known = await customer({ name: 'Ada Lovelace', email: 'ada@example.com', country: 'GB' });
    const created = await create({ customerId: known.id });
    const changed = await gw.call('PATCH', `/customers/${known.id}`, { apiKey: m.apiKey, body: { country: 'FR' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.country).toBe('FR');
    expect((await readWithKey(created.paymentRequestId)).body.payer.country).toBe('GB');
  });

  it('ignores a field the payer does not define and names it', async () => {
    const res = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: requestBody({ payer: { name: 'Asha Rao', birthDate: '1990-01-01' } }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('payer.birthDate');
    expect(res.body.payer).toEqual({ name: 'Asha Rao' });
  });

  it('lets a checkout token pay with the defaults filled in as the payment body requires them', async () => {
    const created = await create({ amount: 10.5, currency: 'EUR', payer: { ...FULL_PAYER, country: 'DE' } });
    const token = await mintToken(gw, m.apiKey, created.paymentRequestId);
    const view = await gw.call('GET', `/payment-requests/${created.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
    });
    const { number, expiration, cvv } = card('4242424242424242');
    const paid = await gw.call('POST', `/payments/h2h/${created.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
      body: { ...view.body.payer, number, expiration, cvv, amount: 10.5, unit: 'EUR' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('succeeded');
  });
});
