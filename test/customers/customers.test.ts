import { describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { card, CARDS } from '../payments/fixtures.js';
import { dereference } from '../../proof/fuzz/contract.js';

const gw = useGateway();

const createCustomer = (m: TestMerchant, body: Record<string, unknown>) =>
  gw.call('POST', '/customers', { apiKey: m.apiKey, body });

/** A payment request of the customer, in major units, paid and partly refunded through the API, as a payer and merchant would. */
async function paymentRequest(
  m: TestMerchant,
  customerId: number,
  values: { amount: number; currency: string; pay?: boolean; refund?: number },
): Promise<{ id: number }> {
  const created = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: values.amount, currency: values.currency, reference: `order-${Math.random()}`, customerId },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.paymentRequestId as number;
  if (values.pay) await payAndRefund(m, id, values.refund);
  return { id };
}

async function payAndRefund(m: TestMerchant, paymentRequestId: number, refund?: number) {
  const paid = await gw.call('POST', `/payments/creditCard/acme/${paymentRequestId}`, {
    apiKey: m.apiKey,
    body: card(CARDS.visa),
  });
  expect(paid.body.status, paid.text).toBe('succeeded');
  if (refund === undefined) return;
  const refunded = await gw.call('POST', `/payments/${paid.body.paymentId}/refunds`, {
    apiKey: m.apiKey,
    body: { amount: refund },
  });
  expect(refunded.status, refunded.text).toBe(200);
}

/**
 * A row of the other mode naming a test-mode customer: the API never creates one (a live key cannot
 * name a test customer, and no live processor exists to pay it), so only a direct write can make it.
 */
async function liveRowNaming(m: TestMerchant, customerId: number) {
  const now = gw.clock.now();
  await gw.db
    .insertInto('payment_requests')
    .values({
      merchant_id: m.merchantId,
      livemode: true,
      amount: 900,
      currency: 'EUR',
      reference: `order-${Math.random()}`,
      customer_id: customerId,
      status: 'paid',
      amount_paid: 900,
      amount_refunded: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

describe('POST /customers', () => {
  it('creates the record and answers the spec Customer with server-owned fields filled in', async () => {
    const m = await gw.merchant();
    const res = await createCustomer(m, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      address: '12 St James Square, London',
      phone: '441234567890',
      memberId: 'member-1',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      ownerId: m.merchantId,
      userId: m.userId,
      ownerName: expect.stringMatching(/^Merchant \d+$/),
      address: '12 St James Square, London',
      phone: '441234567890',
      memberId: 'member-1',
      country: null,
      hasPaymentRequests: false,
      totalDeposits: 0,
      depositsByCurrency: {},
      createDate: gw.clock.now().toISOString(),
    });
    const merchant = await gw.db
      .selectFrom('merchants')
      .select('name')
      .where('id', '=', m.merchantId)
      .executeTakeFirstOrThrow();
    expect(res.body.ownerName).toBe(merchant.name);
  });

  it('needs only name and email; optional fields come back as null', async () => {
    const m = await gw.merchant();
    const res = await createCustomer(m, { name: 'B', email: 'b@example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'B', address: null, phone: null, memberId: null });
  });

  it('ignores server-owned fields sent in the body and names them in X-Ignored-Fields', async () => {
    const m = await gw.merchant();
    const other = await gw.merchant();
    const res = await createCustomer(m, {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      id: 999999,
      ownerId: other.merchantId,
      userId: other.userId,
      ownerName: 'Someone else',
      hasPaymentRequests: true,
      totalDeposits: 1_000_000,
      createDate: '2001-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')?.split(', ').sort()).toEqual(
      ['createDate', 'hasPaymentRequests', 'id', 'ownerId', 'ownerName', 'totalDeposits', 'userId'].sort(),
    );
    expect(res.body.id).not.toBe(999999);
    expect(res.body).toMatchObject({
      ownerId: m.merchantId,
      userId: m.userId,
      hasPaymentRequests: false,
      totalDeposits: 0,
    });
    expect(res.body.ownerName).not.toBe('Someone else');
    expect(res.body.createDate).toBe(gw.clock.now().toISOString());
  });

  it('accepts the spec content type application/json-patch+json and the /v2 prefix', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/v2/customers', {
      apiKey: m.apiKey,
      body: { name: 'Patch Body', email: 'patch@example.com' },
      contentType: 'application/json-patch+json',
    });
    expect(res.status).toBe(200);
    const read = await gw.call('GET', `/customers/${res.body.id}`, { apiKey: m.apiKey });
    expect(read.body).toEqual(res.body);
  });

  it('records the user whose key created the customer', async () => {
    const m = await gw.merchant();
    const res = await createCustomer(m, { name: 'U', email: 'u@example.com' });
    const row = await gw.db
      .selectFrom('customers')
      .select(['user_id', 'merchant_id', 'livemode'])
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: m.userId, merchant_id: m.merchantId, livemode: false });
  });
});

describe('GET /customers/{id} and PATCH /customers/{id}', () => {
  it('reads back exactly what was created', async () => {
    const m = await gw.merchant();
    const created = await createCustomer(m, { name: 'Read Me', email: 'read@example.com', memberId: 'r-1' });
    const res = await gw.call('GET', `/customers/${created.body.id}`, { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it('changes only the fields sent, clears optional fields with null, and keeps server-owned fields', async () => {
    const m = await gw.merchant();
    const created = await createCustomer(m, {
      name: 'Old Name',
      email: 'old@example.com',
      address: 'Old Street 1',
      phone: '4915112345678',
      memberId: 'm-old',
    });
    gw.clock.advance(60);
    const res = await gw.call('PATCH', `/customers/${created.body.id}`, {
      apiKey: m.apiKey,
      body: { name: 'New Name', address: null, memberId: 'm-new', totalDeposits: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('totalDeposits');
    expect(res.body).toEqual({
      ...created.body,
      name: 'New Name',
      address: null,
      memberId: 'm-new',
    });
    const read = await gw.call('GET', `/customers/${created.body.id}`, { apiKey: m.apiKey });
    expect(read.body).toEqual(res.body);

    const cleared = await gw.call('PATCH', `/customers/${created.body.id}`, {
      apiKey: m.apiKey,
      body: { phone: null, memberId: null },
    });
    expect(cleared.body).toMatchObject({ name: 'New Name', email: 'old@example.com', phone: null, memberId: null });
  });

  it('frees a memberId for reuse once it is cleared', async () => {
    const m = await gw.merchant();
    const first = await createCustomer(m, { name: 'First', email: 'f@example.com', memberId: 'shared' });
    await gw.call('PATCH', `/customers/${first.body.id}`, { apiKey: m.apiKey, body: { memberId: null } });
    const second = await createCustomer(m, { name: 'Second', email: 's@example.com', memberId: 'shared' });
    expect(second.status).toBe(200);
  });
});

describe('hasPaymentRequests and totalDeposits', () => {
  it('are computed from the customer payment requests: net paid in major units, per currency', async () => {
    const m = await gw.merchant();
    const { body: customer } = await createCustomer(m, { name: 'Payer', email: 'payer@example.com' });

    const open = await paymentRequest(m, customer.id, { amount: 25, currency: 'USD' });
    let res = await gw.call('GET', `/customers/${customer.id}`, { apiKey: m.apiKey });
    expect(res.body).toMatchObject({ hasPaymentRequests: true, totalDeposits: 0, depositsByCurrency: { USD: 0 } });

    await paymentRequest(m, customer.id, { amount: 10.1, currency: 'USD', pay: true });
    await paymentRequest(m, customer.id, { amount: 50.2, currency: 'USD', pay: true, refund: 10 });
    const yen = await paymentRequest(m, customer.id, { amount: 500, currency: 'JPY', pay: true });
    await paymentRequest(m, customer.id, { amount: 1.5, currency: 'KWD', pay: true });
    res = await gw.call('GET', `/customers/${customer.id}`, { apiKey: m.apiKey });
    // USD 10.10 + 50.20 - 10.00 = 50.30; JPY has no decimals; KWD has three.
    expect(res.body.depositsByCurrency).toEqual({ USD: 50.3, JPY: 500, KWD: 1.5 });
    expect(res.body.totalDeposits).toBe(551.8);

    // Always true to the data: a refund recorded on a request shows on the next read.
    await payAndRefund(m, open.id);
    const yenPayment = await gw.call('GET', `/payments?paymentRequestId=${yen.id}`, { apiKey: m.apiKey });
    const yenRefund = await gw.call('POST', `/payments/${yenPayment.body.data[0].paymentId}/refunds`, {
      apiKey: m.apiKey,
      body: { amount: 500 },
    });
    expect(yenRefund.status).toBe(200);
    res = await gw.call('GET', `/customers/${customer.id}`, { apiKey: m.apiKey });
    expect(res.body.depositsByCurrency).toEqual({ USD: 75.3, JPY: 0, KWD: 1.5 });
    expect(res.body.totalDeposits).toBe(76.8);

    const listed = await gw.call('GET', '/customers', { apiKey: m.apiKey });
    expect(listed.body.data[0]).toEqual(res.body);
  });

  it('count only the customer own requests of its own mode', async () => {
    const m = await gw.merchant();
    const { body: mine } = await createCustomer(m, { name: 'Mine', email: 'mine@example.com' });
    const { body: theirs } = await createCustomer(m, { name: 'Theirs', email: 'theirs@example.com' });
    await paymentRequest(m, theirs.id, { amount: 7, currency: 'EUR', pay: true });
    // A row of the other mode naming this id (never created by the API) does not leak into the totals.
    await liveRowNaming(m, mine.id);
    const res = await gw.call('GET', `/customers/${mine.id}`, { apiKey: m.apiKey });
    expect(res.body).toMatchObject({ hasPaymentRequests: false, totalDeposits: 0, depositsByCurrency: {} });
    const other = await gw.call('GET', `/customers/${theirs.id}`, { apiKey: m.apiKey });
    expect(other.body).toMatchObject({ hasPaymentRequests: true, totalDeposits: 7, depositsByCurrency: { EUR: 7 } });
  });
});

describe('GET /customers', () => {
  it('pages newest first with a cursor, without gaps or repeats', async () => {
    const m = await gw.merchant();
    const ids: number[] = [];
    for (let i = 0; i < 25; i++)
      ids.push((await createCustomer(m, { name: `C${i}`, email: `c${i}@example.com` })).body.id);

    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=10&cursor=${encodeURIComponent(cursor)}` : '?limit=10';
      const res = await gw.call('GET', `/customers${query}`, { apiKey: m.apiKey });
      expect(res.status).toBe(200);
      pages++;
      seen.push(...res.body.data.map((c: { id: number }) => c.id));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it('returns 20 by default and says there is more', async () => {
    const m = await gw.merchant();
    for (let i = 0; i < 21; i++) await createCustomer(m, { name: `D${i}`, email: `d${i}@example.com` });
    const res = await gw.call('GET', '/customers', { apiKey: m.apiKey });
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
    const rest = await gw.call('GET', `/customers?cursor=${res.body.nextCursor}`, { apiKey: m.apiKey });
    expect(rest.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(rest.body.data).toHaveLength(1);
  });

  it('filters by email and by memberId', async () => {
    const m = await gw.merchant();
    const a = await createCustomer(m, { name: 'A', email: 'same@example.com', memberId: 'A-1' });
    const b = await createCustomer(m, { name: 'B', email: 'same@example.com' });
    await createCustomer(m, { name: 'C', email: 'other@example.com', memberId: 'C-1' });

    const byEmail = await gw.call('GET', '/customers?email=same@example.com', { apiKey: m.apiKey });
    expect(byEmail.body.data.map((c: { id: number }) => c.id)).toEqual([b.body.id, a.body.id]);
    const byMember = await gw.call('GET', '/customers?memberId=A-1', { apiKey: m.apiKey });
    expect(byMember.body).toEqual({ data: [a.body], hasMore: false, nextCursor: null });
    const none = await gw.call('GET', '/customers?email=nobody@example.com', { apiKey: m.apiKey });
    expect(none.body).toEqual({ data: [], hasMore: false, nextCursor: null });
  });
});

describe('documentation', () => {
  it('/openapi.json describes every customer route with its schema', async () => {
    const { body: doc } = await gw.call('GET', '/openapi.json');
    expect(Object.keys(doc.paths['/customers']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/customers/{id}']).sort()).toEqual(['get', 'patch']);
    const create = doc.paths['/customers'].post;
    expect(create.tags).toEqual(['Customers']);
    expect(dereference(doc, create.requestBody.content['application/json-patch+json'].schema).required.sort()).toEqual([
      'email',
      'name',
    ]);
    expect(
      Object.keys(dereference(doc, create.responses['200'].content['application/json'].schema).properties),
    ).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'email',
        'ownerId',
        'userId',
        'ownerName',
        'address',
        'phone',
        'memberId',
        'hasPaymentRequests',
        'totalDeposits',
        'createDate',
      ]),
    );
    expect(create.responses['400'].content).toHaveProperty(['application/problem+json']);
    expect(create.responses['401'].content).toHaveProperty(['application/json']);
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(doc.paths['/customers'].get.parameters.map((p: { name?: string }) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'email', 'memberId']),
    );
  });
});
