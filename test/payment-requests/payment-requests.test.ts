import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, payer, walletPayment } from '../payments/fixtures.js';
import { createRequest, expectErrorGuide, inSeconds, insertCustomer, requestBody } from './fixtures.js';
import { dereference } from '../../proof/fuzz/contract.js';

const gw = useGateway();

const storedRow = (id: number) =>
  gw.db.selectFrom('payment_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('POST /payment-requests', () => {
  it('creates an open request and answers the full record', async () => {
    const m = await gw.merchant();
    const customerId = await insertCustomer(gw, m);
    const expiresAt = inSeconds(gw, 3600);
    const res = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: {
        amount: 19.99,
        currency: 'eur',
        reference: 'order-1001',
        customerId,
        description: 'Two concert tickets',
        expiresAt,
        metadata: { cart: 'c-77', channel: 'web' },
      },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.body.paymentRequestId;
    expect(Number.isInteger(id)).toBe(true);
    expect(res.body).toEqual({
      paymentRequestId: id,
      amount: 19.99,
      currency: 'EUR',
      reference: 'order-1001',
      status: 'open',
      amountPaid: 0,
      amountRefunded: 0,
      customerId,
      description: 'Two concert tickets',
      metadata: { cart: 'c-77', channel: 'web' },
      createDate: gw.clock.now().toISOString(),
      expiresAt,
      livemode: false,
      notifyUrl: null,
      successUrl: null,
      failureUrl: null,
      captureDelayHours: 0,
      // The customer's name and e-mail, as the payer defaults of its checkout.
      payer: { name: 'Ada Lovelace', email: expect.stringMatching(/^ada\d+@example\.com$/) },
      checkoutUrl: `${gw.config.checkoutUrl}/main?requestId=${id}`,
    });
  });

  it('answers defaults for the optional fields', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: { amount: 5, currency: 'USD', reference: 'r' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      customerId: null,
      description: null,
      expiresAt: null,
      metadata: {},
      amount: 5,
      currency: 'USD',
    });
  });

  it('checkoutUrl never carries a token or a key', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey);
    const url = new URL(created.checkoutUrl);
    expect([...url.searchParams.keys()]).toEqual(['requestId']);
    expect(created.checkoutUrl).not.toContain(m.apiKey);
    expect(created.checkoutUrl).not.toMatch(/cst_|svc_/);
  });

  it.each([
    [19.99, 'EUR', 1999],
    [4.35, 'USD', 435], // 4.35 * 100 = 434.99999999999994 in floating point
    [0.29, 'GBP', 29],
    [1.005, 'KWD', 1005], // 1.005 * 1000 = 1004.9999999999999
    [1000, 'JPY', 1000],
    [999999999.99, 'EUR', 99999999999],
    [0.01, 'EUR', 1],
    [12.5, 'BHD', 12500],
  ])('stores %s %s as %s minor units and answers the amount as sent', async (amount, currency, minor) => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { amount, currency });
    expect(created.amount).toBe(amount);
    expect((await storedRow(created.paymentRequestId)).amount).toBe(minor);
  });

  it('ignores fields it does not define (server-owned ones included) and names them', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/payment-requests', {
      apiKey: m.apiKey,
      body: { ...requestBody(), status: 'paid', paymentRequestId: 1, amountPaid: 10, birthDate: '1990-01-01' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('status, paymentRequestId, amountPaid, birthDate');
    expect(res.body).toMatchObject({ status: 'open', amountPaid: 0 });
    expect(res.body).not.toHaveProperty('birthDate');
  });

  it('accepts the spec content type application/json-patch+json and the /v2 prefix', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/v2/payment-requests', {
      apiKey: m.apiKey,
      body: requestBody({ amount: 7 }),
      contentType: 'application/json-patch+json',
    });
    expect(res.status, res.text).toBe(200);
    expect(
      (await gw.call('GET', `/v2/payment-requests/${res.body.paymentRequestId}`, { apiKey: m.apiKey })).body.amount,
    ).toBe(7);
  });

  it('links a customer of the same merchant and mode, and refuses any other with 404', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const other = await gw.merchant();
    const own = await insertCustomer(gw, m);
    const ownLive = await insertCustomer(gw, m, true);
    const foreign = await insertCustomer(gw, other);

    expect((await createRequest(gw, m.apiKey, { customerId: own })).customerId).toBe(own);
    expect((await createRequest(gw, m.liveKey!, { customerId: ownLive })).customerId).toBe(ownLive);
    for (const [key, customerId] of [
      [m.apiKey, foreign],
      [m.apiKey, ownLive],
      [m.liveKey!, own],
      [m.apiKey, 987654321],
    ] as const) {
      const res = await gw.call('POST', '/payment-requests', { apiKey: key, body: requestBody({ customerId }) });
      expectErrorGuide(res, 404, 'NOT_FOUND', 'NOT_FOUND');
    }
  });
});

describe('GET /payment-requests/{id} and /payment-requests/status/{id}', () => {
  it('reads back the record as created', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { metadata: { a: '1' } });
    const res = await gw.call('GET', `/payment-requests/${created.paymentRequestId}`, { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('answers the compact status with no payment attempt yet', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { amount: 42.1, currency: 'usd', reference: 'inv-9' });
    const res = await gw.call('GET', `/payment-requests/status/${created.paymentRequestId}`, { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      paymentRequestId: created.paymentRequestId,
      status: 'open',
      amount: 42.1,
      unit: 'USD',
      referenceId: 'inv-9',
      lastPayment: null,
    });
  });

  it('answers 404 for an id that does not exist and 400 for one that is not an id', async () => {
    const m = await gw.merchant();
    expectErrorGuide(
      await gw.call('GET', '/payment-requests/99999999', { apiKey: m.apiKey }),
      404,
      'NOT_FOUND',
      'NOT_FOUND',
    );
    expectErrorGuide(
      await gw.call('GET', '/payment-requests/status/99999999', { apiKey: m.apiKey }),
      404,
      'NOT_FOUND',
      'NOT_FOUND',
    );
    const bad = await gw.call('GET', '/payment-requests/abc', { apiKey: m.apiKey });
    expectErrorGuide(bad, 400, 'INVALID_FORMAT', 'VAL002');
    expect(bad.body.details).toEqual({ field: 'id', value: 'abc' });
  });
});

describe('POST /payment-requests/{id}/cancel', () => {
  it('cancels an open request once; a second cancel is a 409', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey);
    const first = await gw.call('POST', `/payment-requests/${created.paymentRequestId}/cancel`, { apiKey: m.apiKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ ...created, status: 'canceled' });

    const second = await gw.call('POST', `/payment-requests/${created.paymentRequestId}/cancel`, { apiKey: m.apiKey });
    expectErrorGuide(second, 409, 'CONFLICT', 'CONFLICT');
    expect(second.body.details).toEqual({ paymentRequestId: created.paymentRequestId, status: 'canceled' });
    expect(
      (await gw.call('GET', `/payment-requests/${created.paymentRequestId}`, { apiKey: m.apiKey })).body.status,
    ).toBe('canceled');
  });

  it('answers 404 for an unknown request', async () => {
    const m = await gw.merchant();
    expectErrorGuide(
      await gw.call('POST', '/payment-requests/99999999/cancel', { apiKey: m.apiKey }),
      404,
      'NOT_FOUND',
      'NOT_FOUND',
    );
  });
});

describe('expiry', () => {
  it('the durable job expires an open request at expiresAt', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, 600) });
    const id = created.paymentRequestId;

    gw.clock.advance(599);
    await gw.runJobs();
    expect((await storedRow(id)).status).toBe('open');
    expect((await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body.status).toBe('open');

    gw.clock.advance(1);
    await gw.runJobs();
    expect((await storedRow(id)).status).toBe('expired');
    const res = await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey });
    expect(res.body).toEqual({ ...created, status: 'expired' });
    // The expiry is announced through the outbox, written with the status change.
    const events = await gw.db
      .selectFrom('outbox_events')
      .select(['type', 'payload'])
      .where('object_id', '=', id)
      .execute();
    expect(events).toEqual([
      {
        type: 'payment_request.expired',
        payload: expect.objectContaining({ paymentRequestId: id, status: 'expired' }),
      },
    ]);
  });

  it('reads treat a request past expiresAt as expired before the job has run', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, 60), reference: 'exp-read' });
    const id = created.paymentRequestId;
    gw.clock.advance(60);

    expect((await storedRow(id)).status).toBe('open'); // the job has not run
    expect((await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body.status).toBe('expired');
    expect((await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey })).body.status).toBe('expired');
    const expiredList = await gw.call('GET', '/payment-requests?status=expired', { apiKey: m.apiKey });
    expect(expiredList.body.data.map((r: any) => r.paymentRequestId)).toEqual([id]);
    const openList = await gw.call('GET', '/payment-requests?status=open', { apiKey: m.apiKey });
    expect(openList.body.data).toEqual([]);

    const cancel = await gw.call('POST', `/payment-requests/${id}/cancel`, { apiKey: m.apiKey });
    expectErrorGuide(cancel, 409, 'CONFLICT', 'CONFLICT');
    expect(cancel.body.details.status).toBe('expired');
    const mint = await gw.call('POST', `/payment-requests/${id}/checkout-session`, { apiKey: m.apiKey, body: {} });
    expectErrorGuide(mint, 409, 'CONFLICT', 'CONFLICT');
  });

  it('the job leaves a request alone that was canceled first', async () => {
    const m = await gw.merchant();
    const created = await createRequest(gw, m.apiKey, { expiresAt: inSeconds(gw, 30) });
    await gw.call('POST', `/payment-requests/${created.paymentRequestId}/cancel`, { apiKey: m.apiKey });
    gw.clock.advance(30);
    await gw.runJobs();
    expect((await storedRow(created.paymentRequestId)).status).toBe('canceled');
    const job = await gw.db
      .selectFrom('jobs')
      .select(['completed_at', 'failed_at'])
      .where('dedupe_key', '=', `payment_request.expire:${created.paymentRequestId}`)
      .executeTakeFirstOrThrow();
    expect(job.completed_at).not.toBeNull();
    expect(job.failed_at).toBeNull();
  });
});

describe('GET /payment-requests', () => {
  let m: TestMerchant;
  const ids: number[] = [];
  let customerId: number;
  let middle: string;

  beforeAll(async () => {
    m = await gw.merchant();
    customerId = await insertCustomer(gw, m);
    // Seven requests a minute apart, newest last: three for the customer with reference "shared".
    for (let i = 0; i < 7; i++) {
      const forCustomer = i % 2 === 0 && i < 6;
      const created = await createRequest(gw, m.apiKey, {
        reference: forCustomer ? 'shared' : `list-${i}`,
        ...(forCustomer ? { customerId } : {}),
      });
      ids.push(created.paymentRequestId);
      if (i === 3) middle = created.createDate;
      gw.clock.advance(60);
    }
    await gw.call('POST', `/payment-requests/${ids[1]}/cancel`, { apiKey: m.apiKey });
  });

  const page = (query: string) => gw.call('GET', `/payment-requests${query}`, { apiKey: m.apiKey });
  const idsOf = (res: { body: { data: Array<{ paymentRequestId: number }> } }) =>
    res.body.data.map((r) => r.paymentRequestId);
  const newestFirst = () => [...ids].reverse();

  it('walks every page newest first with an opaque cursor', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await page(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      pages++;
      seen.push(...idsOf(res));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst());
  });

  it('answers an empty last page exactly at the boundary', async () => {
    const first = await page('?limit=7');
    expect(idsOf(first)).toEqual(newestFirst());
    expect(first.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('filters by customer and reference across pages', async () => {
    const first = await page(`?limit=2&customerId=${customerId}&reference=shared`);
    expect(first.body.hasMore).toBe(true);
    const second = await page(
      `?limit=2&customerId=${customerId}&reference=shared&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect([...idsOf(first), ...idsOf(second)]).toEqual([ids[4], ids[2], ids[0]]);
  });

  it('filters by status', async () => {
    expect(idsOf(await page('?status=canceled'))).toEqual([ids[1]]);
    expect(idsOf(await page('?status=open'))).toEqual(newestFirst().filter((id) => id !== ids[1]));
    expect(idsOf(await page('?status=paid'))).toEqual([]);
  });

  it('filters by creation time, both bounds inclusive, across pages', async () => {
    const from = middle;
    const to = new Date(new Date(middle).getTime() + 120_000).toISOString();
    const first = await page(`?limit=2&createdFrom=${from}&createdTo=${to}`);
    expect(idsOf(first)).toEqual([ids[5], ids[4]]);
    const second = await page(
      `?limit=2&createdFrom=${from}&createdTo=${to}&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(idsOf(second)).toEqual([ids[3]]);
    expect(second.body.hasMore).toBe(false);
  });

  it('defaults to 20 per page', async () => {
    const many = await gw.merchant();
    for (let i = 0; i < 21; i++) await createRequest(gw, many.apiKey);
    const res = await gw.call('GET', '/payment-requests', { apiKey: many.apiKey });
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
  });

  it.each([
    ['limit=0', 'limit', 0],
    ['limit=101', 'limit', 101],
    ['status=pending', 'status', 'pending'],
    ['createdFrom=yesterday', 'createdFrom', 'yesterday'],
    ['customerId=abc', 'customerId', 'abc'],
    ['cursor=not-a-cursor', 'cursor', 'not-a-cursor'],
  ])('rejects %s', async (query, field, value) => {
    const res = await page(`?${query}`);
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details).toEqual({ field, value });
  });
});

describe('GET /payment-requests: the last payment attempt of each request', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await gw.merchant();
  });

  /** A payment attempt; a declined card answers 402 (with the payment's id). */
  const pay = async (id: number, path: string, body: Record<string, unknown>, status = 200) => {
    const res = await gw.call('POST', `/payments/${path}/${id}`, { apiKey: m.apiKey, body });
    expect(res.status, res.text).toBe(status);
    return res.body as { paymentId: number };
  };
  const listed = async (id: number) => {
    const res = await gw.call('GET', '/payment-requests?limit=100', { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(200);
    return res.body.data.find((r: { paymentRequestId: number }) => r.paymentRequestId === id);
  };

  it("shows the newest attempt's method, card (brand and last 4 only), payer and outcome", async () => {
    const { paymentRequestId: id } = await createRequest(gw, m.apiKey, { amount: 10.5 });
    const declined = await pay(
      id,
      'creditCard/acme',
      {
        ...card(CARDS.doNotHonor),
        name: 'Bob Builder',
        email: 'bob@example.com',
      },
      402,
    );
    gw.clock.advance(60);
    const paid = await pay(id, 'creditCard/acme', {
      ...card(CARDS.mastercard),
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    expect(paid.paymentId).toBeGreaterThan(declined.paymentId);
    const item = await listed(id);
    expect(item).toMatchObject({ paymentRequestId: id, status: 'paid', payer: {} });
    expect(item.lastPayment).toEqual({
      paymentId: paid.paymentId,
      status: 'succeeded',
      declineCode: null,
      method: 'card',
      payer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      card: { brand: 'mastercard', last4: '4444' },
      upiId: null,
      walletType: null,
    });
    // As GET /payments shows the same payment.
    const payment = (await gw.call('GET', `/payments/${paid.paymentId}`, { apiKey: m.apiKey })).body;
    expect(item.lastPayment).toMatchObject({
      method: payment.method,
      payer: payment.payer,
      card: { brand: payment.card.brand, last4: payment.card.last4 },
    });
    expect(JSON.stringify(item)).not.toContain(CARDS.mastercard.slice(0, 6));
  });

  it('shows a declined last attempt with its decline code, as the compact status does', async () => {
    const { paymentRequestId: id } = await createRequest(gw, m.apiKey, { amount: 10.5 });
    const declined = await pay(id, 'creditCard/acme', card(CARDS.doNotHonor), 402);
    const item = await listed(id);
    expect(item.lastPayment).toMatchObject({
      paymentId: declined.paymentId,
      status: 'failed',
      declineCode: '05',
      method: 'card',
      card: { brand: 'visa', last4: '0002' },
      payer: { name: payer.name, email: payer.email },
    });
    const status = (await gw.call('GET', `/payment-requests/status/${id}`, { apiKey: m.apiKey })).body;
    expect(item.lastPayment).toMatchObject(status.lastPayment);
  });

  it('answers null for a request without any payment', async () => {
    const { paymentRequestId: id } = await createRequest(gw, m.apiKey, {
      payer: { name: 'Default Payer', email: 'default@example.com' },
    });
    const item = await listed(id);
    expect(item.lastPayment).toBeNull();
    // The request's own payer stays the payer defaults.
    expect(item.payer).toEqual({ name: 'Default Payer', email: 'default@example.com' });
  });

  it("names a UPI attempt's UPI id and a wallet attempt's wallet", async () => {
    const upiRequest = (await createRequest(gw, m.apiKey, { amount: 499, currency: 'INR' })).paymentRequestId;
    const upi = await pay(upiRequest, 'h2h', { ...payer, amount: 499, unit: 'INR', upiId: 'jane@okaxis' });
    const walletRequest = (await createRequest(gw, m.apiKey)).paymentRequestId;
    const wallet = await pay(walletRequest, 'wallet', walletPayment('tok_list_ok', 'A'));
    expect((await listed(upiRequest)).lastPayment).toMatchObject({
      paymentId: upi.paymentId,
      method: 'upi',
      upiId: 'jane@okaxis',
      walletType: null,
      card: null,
      payer: { name: payer.name, email: payer.email },
    });
    expect((await listed(walletRequest)).lastPayment).toMatchObject({
      paymentId: wallet.paymentId,
      method: 'wallet',
      walletType: 'applepay',
      upiId: null,
      card: null,
      payer: { name: payer.name, email: payer.email },
    });
  });

  it('keeps one row per request across pages, whatever the number of attempts', async () => {
    const page = async (cursor?: string) =>
      (
        await gw.call('GET', `/payment-requests?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          apiKey: m.apiKey,
        })
      ).body;
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const body = await page(cursor);
      expect(body.data.length).toBeLessThanOrEqual(2);
      seen.push(...body.data.map((r: { paymentRequestId: number }) => r.paymentRequestId));
      cursor = body.nextCursor ?? undefined;
    } while (cursor);
    const all = (await gw.call('GET', '/payment-requests?limit=100', { apiKey: m.apiKey })).body.data;
    expect(seen).toEqual(all.map((r: { paymentRequestId: number }) => r.paymentRequestId));
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('OpenAPI', () => {
  it('documents every payment request route with its schemas', async () => {
    const doc = (await gw.call('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/payment-requests'])).toEqual(['post', 'get']);
    expect(doc.paths['/payment-requests/{id}'].get.security).toEqual([{ ApiKey: [] }, { CheckoutToken: [] }]);
    expect(doc.paths['/payment-requests/status/{id}'].get.responses['200']).toBeDefined();
    expect(doc.paths['/payment-requests/{id}/cancel'].post.summary).toMatch(/Cancel/);
    const listed = dereference(
      doc,
      doc.paths['/payment-requests'].get.responses['200'].content['application/json'].schema,
    );
    const lastPayment = JSON.stringify(listed.properties.data.items.properties.lastPayment);
    for (const field of ['paymentId', 'method', 'payer', 'card', 'last4', 'upiId', 'walletType'])
      expect(lastPayment).toContain(`"${field}"`);
    expect(lastPayment).not.toContain('"bin"');
    expect(doc.paths['/payment-requests/{paymentRequestId}/checkout-session'].post.security).toEqual([{ ApiKey: [] }]);
    expect((await gw.call('GET', '/docs')).status).toBe(200);
  });
});
