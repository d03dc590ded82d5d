import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { expectErrorGuide, inSeconds, requestBody } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const create = (body: unknown) => gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body });
const countRequests = async () =>
  Number(
    (
      await gw.db
        .selectFrom('payment_requests')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const twentyKeys = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, 'v']));

describe('each bound, and one past it', () => {
  it.each([
    ['amount 0.01 EUR', { amount: 0.01 }],
    ['amount 999999999.99 EUR', { amount: 999999999.99 }],
    ['amount 999999999 JPY', { amount: 999999999, currency: 'JPY' }],
    ['amount 1.005 KWD (3 decimals)', { amount: 1.005, currency: 'KWD' }],
    ['amount 2.5 JOD', { amount: 2.5, currency: 'JOD' }],
    ['reference of 1 character', { reference: 'x' }],
    ['reference of 100 characters', { reference: 'r'.repeat(100) }],
    ['description of 500 characters', { description: 'd'.repeat(500) }],
    ['metadata with 20 keys', { metadata: twentyKeys }],
    ['metadata key of 40 and value of 500 characters', { metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } }],
    ['null optional fields', { customerId: null, description: null, expiresAt: null }],
  ])('accepts %s', async (_name, overrides) => {
    const res = await create(requestBody(overrides));
    expect(res.status, res.text).toBe(200);
  });

  it('accepts expiresAt one second ahead, and rejects it at the current instant', async () => {
    expect((await create(requestBody({ expiresAt: inSeconds(gw, 1) }))).status).toBe(200);
    const now = gw.clock.now().toISOString();
    const res = await create(requestBody({ expiresAt: now }));
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details).toEqual({ field: 'expiresAt', value: now });
  });

  it.each([
    ['amount 0', { amount: 0 }, 'amount', 0],
    ['a negative amount', { amount: -10 }, 'amount', -10],
    ['amount 1000000000', { amount: 1000000000 }, 'amount', 1000000000],
    ['amount 999999999.999 KWD', { amount: 999999999.999, currency: 'KWD' }, 'amount', 999999999.999],
    ['3 decimals for EUR', { amount: 10.001 }, 'amount', 10.001],
    ['a float artefact for EUR', { amount: 0.1 + 0.2 }, 'amount', 0.30000000000000004],
    ['decimals for JPY', { amount: 100.5, currency: 'JPY' }, 'amount', 100.5],
    ['decimals for KRW', { amount: 1.1, currency: 'krw' }, 'amount', 1.1],
    ['4 decimals for KWD', { amount: 1.0001, currency: 'KWD' }, 'amount', 1.0001],
    ['3 decimals for USD', { amount: 1.005, currency: 'USD' }, 'amount', 1.005],
    ['a string amount', { amount: '10.00' }, 'amount', '10.00'],
    ['currency XXX (no currency)', { currency: 'XXX' }, 'currency', 'XXX'],
    ['currency EURO', { currency: 'EURO' }, 'currency', 'EURO'],
    ['currency eu', { currency: 'eu' }, 'currency', 'eu'],
    ['a withdrawn currency (HRK)', { currency: 'HRK' }, 'currency', 'HRK'],
    ['a numeric currency', { currency: 978 }, 'currency', 978],
    ['an empty reference', { reference: '' }, 'reference', ''],
    ['a reference of 101 characters', { reference: 'r'.repeat(101) }, 'reference', 'r'.repeat(101)],
    ['a description of 501 characters', { description: 'd'.repeat(501) }, 'description', 'd'.repeat(501)],
    ['metadata with 21 keys', { metadata: { ...twentyKeys, key20: 'v' } }, 'metadata', { ...twentyKeys, key20: 'v' }],
    ['a metadata key of 41 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata', 'k'.repeat(41)],
    ['a metadata value of 501 characters', { metadata: { note: 'v'.repeat(501) } }, 'metadata.note', 'v'.repeat(501)],
    ['a nested metadata value', { metadata: { nested: { a: 'b' } } }, 'metadata.nested', { a: 'b' }],
    ['metadata that is not an object', { metadata: 'tags' }, 'metadata', 'tags'],
    ['expiresAt that is not a date-time', { expiresAt: 'tomorrow' }, 'expiresAt', 'tomorrow'],
    ['expiresAt in the past', { expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt', '2020-01-01T00:00:00Z'],
    ['customerId 0', { customerId: 0 }, 'customerId', 0],
    ['a string customerId', { customerId: '12' }, 'customerId', '12'],
  ])('rejects %s with INVALID_FORMAT naming the field and value', async (_name, overrides, field, value) => {
    const before = await countRequests();
    const res = await create(requestBody(overrides));
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details).toEqual({ field, value: echoed(value) });
    expect(await countRequests()).toBe(before);
  });
});

describe("the merchant's options for its payments", () => {
  const NOT_RETURN_URLS: Array<[string, string]> = [
    ['text that is no URL', 'not a url'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['a relative URL', '/orders/7/done'],
    ['a URL with credentials', 'https://user:secret@shop.example/done'],
    ['an empty string', ''],
  ];
  for (const field of ['successUrl', 'failureUrl']) {
    it.each(NOT_RETURN_URLS)(
      `refuses ${field} as %s: 400 INVALID_FORMAT naming it; nothing created`,
      async (_name, url) => {
        const before = await countRequests();
        const res = await create(requestBody({ [field]: url }));
        expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
        expect(res.body.details).toEqual({ field, value: url });
        expect(await countRequests()).toBe(before);
      },
    );

    it(`${field}: a live key must use https; http is test mode's only`, async () => {
      const live = await gw.merchant({ withLiveKey: true });
      const before = await countRequests();
      const http = await gw.call('POST', '/payment-requests', {
        apiKey: live.liveKey,
        body: requestBody({ [field]: 'http://shop.example/done' }),
      });
      expectErrorGuide(http, 400, 'INVALID_FORMAT', 'VAL002');
      expect(http.body.details).toEqual({ field, value: 'http://shop.example/done' });
      expect(await countRequests()).toBe(before);
      const https = await gw.call('POST', '/payment-requests', {
        apiKey: live.liveKey,
        body: requestBody({ [field]: 'https://shop.example/done' }),
      });
      expect(https.status, https.text).toBe(200);
      expect(https.body[field]).toBe('https://shop.example/done');
      expect((await create(requestBody({ [field]: 'http://shop.example/done' }))).status).toBe(200);
    });
  }

  it('accepts a return URL with quotes and angle brackets in its query (a URL, escaped where it is used)', async () => {
    const url = `https://shop.example/done?note="<b>'`;
    const res = await create(requestBody({ successUrl: url }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.successUrl).toBe(url);
  });

  it.each([
    ['notifyUrl that is no URL', { notifyUrl: 'not a url' }, 'notifyUrl', 'not a url'],
    ['captureDelayHours 8', { captureDelayHours: 8 }, 'captureDelayHours', 8],
    ['captureDelayHours -1', { captureDelayHours: -1 }, 'captureDelayHours', -1],
    ['captureDelayHours 1.5', { captureDelayHours: 1.5 }, 'captureDelayHours', 1.5],
  ])('rejects %s with INVALID_FORMAT naming it; nothing created', async (_name, overrides, field, value) => {
    const before = await countRequests();
    const res = await create(requestBody(overrides));
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details).toEqual({ field, value });
    expect(await countRequests()).toBe(before);
  });

  it('refuses a notifyUrl of a scheme other than http(s) as a forbidden target (WH003)', async () => {
    const before = await countRequests();
    const res = await create(requestBody({ notifyUrl: 'ftp://hooks.shop.example/' }));
    expectErrorGuide(res, 400, 'WEBHOOK_TARGET_FORBIDDEN', 'WH003');
    expect(res.body.details).toEqual({ field: 'notifyUrl', value: 'ftp://hooks.shop.example/' });
    expect(await countRequests()).toBe(before);
  });
});

describe('missing fields', () => {
  it.each([['amount'], ['currency'], ['reference']])('names a missing %s', async (field) => {
    const body: Record<string, unknown> = requestBody();
    delete body[field];
    const res = await create(body);
    expectErrorGuide(res, 400, 'VALIDATION_ERROR', 'VAL001');
    expect(res.body.details).toEqual({ missingFields: [field] });
  });

  it('names every missing field at once', async () => {
    const res = await create({ description: 'only this' });
    expectErrorGuide(res, 400, 'VALIDATION_ERROR', 'VAL001');
    expect(res.body.details).toEqual({ missingFields: ['amount', 'currency', 'reference'] });
  });

  it('reports missing fields before malformed ones', async () => {
    const res = await create({ amount: 'ten', currency: 'EUR' });
    expectErrorGuide(res, 400, 'VALIDATION_ERROR', 'VAL001');
    expect(res.body.details).toEqual({ missingFields: ['reference'] });
  });
});

describe('error bodies', () => {
  it('never leaks internals in an error body', async () => {
    const res = await create(requestBody({ amount: 'DROP TABLE' }));
    expect(res.text).not.toMatch(/stack|select |insert |at .*\.ts/i);
  });
});

/** What an error echoes of a rejected value (decisions.md): simple values, long strings cut at 256 characters, never objects. */
function echoed(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 256 ? `${value.slice(0, 256)}…` : value;
  return value !== null && typeof value === 'object' ? null : value;
}
