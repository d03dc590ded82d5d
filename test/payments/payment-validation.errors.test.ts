import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest, h2hCard, payer, walletPayment } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
let requestId: number;
beforeAll(async () => {
  m = await gw.merchant();
  requestId = await createRequest(gw, m);
});

const h2h = (body: unknown) => gw.call('POST', `/payments/h2h/${requestId}`, { apiKey: m.apiKey, body });
const acme = (body: unknown) => gw.call('POST', `/payments/creditCard/acme/${requestId}`, { apiKey: m.apiKey, body });

async function expectNothingCreated() {
  const payments = await gw.call('GET', `/payments?paymentRequestId=${requestId}`, { apiKey: m.apiKey });
  expect(payments.body.data).toEqual([]);
  expect((await gw.call('GET', `/payment-requests/${requestId}`, { apiKey: m.apiKey })).body.status).toBe('open');
}

const x = (n: number) => 'x'.repeat(n);

/** [field, value at the bound (accepted by the schema), value one past it]. */
const BOUNDS: Array<[string, unknown, unknown]> = [
  ['name', x(100), x(101)],
  ['email', `${x(88)}@example.com`, `${x(89)}@example.com`],
  ['phoneNumber', '1234567890', '123456789'],
  ['phoneNumber', '12345678901234', '123456789012345'],
  ['address', x(100), x(101)],
  ['city', x(50), x(51)],
  ['postalCode', x(10), x(11)],
  ['country', 'DE', 'DEU'],
  ['country', 'DE', 'D'],
  ['captureDelayHours', 7, 8],
  ['captureDelayHours', 0, -1],
  ['referenceId', x(100), x(101)],
  ['notifyUrl', `https://e.com/${x(2034)}`, `https://e.com/${x(2035)}`],
  ['successUrl', `https://e.com/${x(2034)}`, `https://e.com/${x(2035)}`],
  ['failureUrl', `https://e.com/${x(2034)}`, `https://e.com/${x(2035)}`],
  ['originDomain', `https://e.com/${x(2034)}`, `https://e.com/${x(2035)}`],
];

describe('h2h card: each bound plus one → 400 INVALID_FORMAT naming the field; nothing created', () => {
  for (const [field, , over] of BOUNDS) {
    it(`${field} = ${String(over).slice(0, 20)}… (${String(over).length} chars)`, async () => {
      const res = await h2h({ ...h2hCard(CARDS.visa), [field]: over });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', code: 'VAL002', status: 400, details: { field } });
      await expectNothingCreated();
    });
  }
});

describe('pattern and type violations', () => {
  const cases: Array<[string, unknown, string]> = [
    ['phoneNumber', '+4915112345678', 'INVALID_FORMAT'],
    ['phoneNumber', 4915112345678, 'INVALID_FORMAT'],
    ['email', 'not-an-email', 'INVALID_FORMAT'],
    ['expiration', '12/2030', 'INVALID_FORMAT'],
    ['expiration', '1230', 'INVALID_FORMAT'],
    ['cvv', '12a', 'INVALID_FORMAT'],
    ['cvv', '12', 'INVALID_FORMAT'],
    ['cvv', '12345', 'INVALID_FORMAT'],
    ['number', '1234567', 'INVALID_FORMAT'],
    ['number', '12345678901234567890', 'INVALID_FORMAT'],
    ['amount', '10.50', 'INVALID_FORMAT'],
    ['amount', -1, 'INVALID_FORMAT'],
    ['unit', x(21), 'INVALID_FORMAT'],
    ['is3ds', 'true', 'INVALID_FORMAT'],
    ['captureDelayHours', 1.5, 'INVALID_FORMAT'],
    ['state', '', 'INVALID_FORMAT'],
  ];
  for (const [field, value, error] of cases) {
    it(`${field} = ${JSON.stringify(value)} → ${error}`, async () => {
      const res = await h2h({ ...h2hCard(CARDS.visa), [field]: value });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, details: { field } });
      await expectNothingCreated();
    });
  }

  it('never echoes a card number or CVV in an error', async () => {
    const res = await h2h({ ...h2hCard(CARDS.visa), cvv: '12a' });
    expect(res.text).not.toContain('12a');
    expect(res.body.details.value).toBe('[redacted]');
  });
});

describe('missing required fields → VALIDATION_ERROR listing every one', () => {
  it('h2h card without name, cvv and amount', async () => {
    const { name: _n, cvv: _c, amount: _a, ...rest } = h2hCard(CARDS.visa);
    const res = await h2h(rest);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', code: 'VAL001' });
    expect(res.body.details.missingFields.sort()).toEqual(['amount', 'cvv', 'name']);
  });

  for (const field of [
    'name',
    'number',
    'expiration',
    'cvv',
    'email',
    'phoneNumber',
    'address',
    'city',
    'state',
    'postalCode',
    'country',
  ]) {
    it(`card per processor without ${field}`, async () => {
      const body: Record<string, unknown> = { ...card(CARDS.visa) };
      delete body[field];
      const res = await acme(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: { missingFields: [field] } });
    });
  }

  it('h2h token variant without unit and postalCode', async () => {
    const { postalCode: _p, ...rest } = payer;
    const res = await h2h({ ...rest, token: 'ctok_x', amount: 10.5 });
    expect(res.body.details.missingFields.sort()).toEqual(['postalCode', 'unit']);
  });

  it('an empty body', async () => {
    const res = await gw.call('POST', `/payments/h2h/${requestId}`, {
      apiKey: m.apiKey,
      body: '',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
  });
});

describe('variant selection at /payments/h2h', () => {
  it('none of number, token, upiId → VALIDATION_ERROR', async () => {
    const res = await h2h({ ...payer, amount: 10.5, unit: 'EUR' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
  });

  it('several of them → VALIDATION_ERROR naming them', async () => {
    const res = await h2h({ ...h2hCard(CARDS.visa), token: 'ctok_x' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: { conflictingFields: ['number', 'token'] } });
  });

  it('the per-processor variant takes no amount, unit or referenceId: they are ignored visibly', async () => {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
      apiKey: m.apiKey,
      body: { ...card(CARDS.visa), amount: 1, unit: 'USD', referenceId: 'r', birthDate: '1990-01-01' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')?.split(', ').sort()).toEqual([
      'amount',
      'birthDate',
      'referenceId',
      'unit',
    ]);
    expect(res.body.amount).toBe(10.5);
  });
});

describe('return URLs (successUrl, failureUrl): absolute http(s) URLs, https with a live key', () => {
  const NOT_RETURN_URLS = [
    'not a url',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '//shop.example/done',
    'https://user:secret@shop.example/done',
  ];
  for (const field of ['successUrl', 'failureUrl']) {
    for (const url of NOT_RETURN_URLS) {
      it(`${field} ${JSON.stringify(url)} → 400 INVALID_FORMAT naming it; nothing created (h2h, wallet)`, async () => {
        const card = await h2h({ ...h2hCard(CARDS.visa), [field]: url });
        expect(card.status, card.text).toBe(400);
        expect(card.body).toMatchObject({ error: 'INVALID_FORMAT', code: 'VAL002', details: { field, value: url } });
        const wallet = await gw.call('POST', `/payments/wallet/${requestId}`, {
          apiKey: m.apiKey,
          body: walletPayment('tok_return', 'googlepay', { [field]: url }),
        });
        expect(wallet.status, wallet.text).toBe(400);
        expect(wallet.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field } });
        await expectNothingCreated();
      });
    }
  }

  it('an http:// return URL with a live key → 400 INVALID_FORMAT (before the live key is turned away)', async () => {
    const live = await gw.merchant({ withLiveKey: true });
    const id = await createRequest(gw, live, 10.5, 'EUR', live.liveKey);
    const res = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: live.liveKey,
      body: { ...h2hCard(CARDS.visa), failureUrl: 'http://shop.example/failed' },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'failureUrl' } });
  });
});

describe('amount and unit must match the payment request', () => {
  it('amount mismatch → INVALID_FORMAT amount', async () => {
    const res = await h2h(h2hCard(CARDS.visa, 10.49));
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'amount' } });
    await expectNothingCreated();
  });

  it('unit mismatch → INVALID_FORMAT unit; the unit is case-insensitive', async () => {
    const res = await h2h(h2hCard(CARDS.visa, 10.5, 'USD'));
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'unit' } });
    await expectNothingCreated();
  });
});

describe('INVALID_CARD (PAY002)', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['Luhn failure', { number: '4242424242424241' }, 'number'],
    ['past expiry', { expiration: '01/20' }, 'expiration'],
    ['month 13', { expiration: '13/30' }, 'expiration'],
    ['4-digit CVV on a Visa', { cvv: '1234' }, 'cvv'],
    ['3-digit CVV on an Amex', { number: CARDS.amex, cvv: '123' }, 'cvv'],
  ];
  for (const [name, override, field] of cases) {
    it(`${name} → 400 INVALID_CARD with details.field ${field}`, async () => {
      const res = await h2h({ ...h2hCard(CARDS.visa), ...override });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'INVALID_CARD',
        code: 'PAY002',
        details: { field, reason: expect.any(String) },
      });
      await expectNothingCreated();
    });
  }

  it('the card expiring this month is still valid', async () => {
    // The sandbox network checks expiry on its own (real) clock, so align the gateway's with it.
    gw.clock.set(new Date());
    const now = gw.clock.now();
    const expiration = `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear() % 100).padStart(2, '0')}`;
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
      apiKey: m.apiKey,
      body: { ...card(CARDS.visa), expiration },
    });
    expect(res.status).toBe(200);
  });
});

describe('resources', () => {
  it('another merchant’s payment request → 404, and its payments are invisible', async () => {
    const other = await gw.merchant();
    const res = await gw.call('POST', `/payments/creditCard/acme/${requestId}`, {
      apiKey: other.apiKey,
      body: card(CARDS.visa),
    });
    expect(res.status).toBe(404);
    const id = await createRequest(gw, m);
    const paid = await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) });
    expect((await gw.call('GET', `/payments/${paid.body.paymentId}`, { apiKey: other.apiKey })).status).toBe(404);
    expect(
      (await gw.call('POST', `/payments/${paid.body.paymentId}/refunds`, { apiKey: other.apiKey, body: {} })).status,
    ).toBe(404);
  });

  it('an id beyond 2^53 - 1 (not exact in JSON numbers) is a 400, never another record', async () => {
    for (const path of ['/payments/9007199254740993', '/payments?paymentRequestId=9007199254740993']) {
      const res = await gw.call('GET', path, { apiKey: m.apiKey });
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', status: 400 });
    }
    const res = await gw.call('POST', '/payments/creditCard/acme/9007199254740993', {
      apiKey: m.apiKey,
      body: card(CARDS.visa),
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'id' });
  });

  it('an unknown processor segment → 404 problem record', async () => {
    const res = await gw.call('POST', `/payments/creditCard/initech/${requestId}`, {
      apiKey: m.apiKey,
      body: card(CARDS.visa),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('credential errors on payment paths keep the error-guide shape', async () => {
    const res = await gw.call('POST', `/payments/h2h/${requestId}`, { body: h2hCard(CARDS.visa) });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      error: 'INVALID_API_KEY',
      code: 'INVALID_API_KEY',
      requestId: expect.any(String),
    });
  });
});
