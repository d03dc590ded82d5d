import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type CallResult, type TestMerchant } from '../helpers/gateway.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const valid = { name: 'Ada Lovelace', email: 'ada@example.com' };
const create = (body: unknown) => gw.call('POST', '/customers', { apiKey: m.apiKey, body });
const customerCount = async () =>
  (await gw.db.selectFrom('customers').select('id').where('merchant_id', '=', m.merchantId).execute()).length;

/** Every customer endpoint error is an RFC 9457 problem record with code, details and requestId. */
function expectProblem(res: CallResult, status: number, error: string, code: string, path: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: path,
    code,
    error,
    requestId: res.headers.get('x-request-id'),
  });
}

/** Credential errors keep the error-guide shape on every path (decisions.md, Error bodies). */
function expectErrorGuide(res: CallResult, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({
    error,
    message: expect.any(String),
    code: error,
    requestId: res.headers.get('x-request-id'),
  });
  expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  expect(res.body).not.toHaveProperty('type');
  expect(res.body).not.toHaveProperty('instance');
}

describe('validation of POST /customers', () => {
  it('names every missing required field', async () => {
    const res = await create({ address: 'Somewhere 1' });
    expectProblem(res, 400, 'VALIDATION_ERROR', 'VAL001', '/customers');
    expect(res.body.details.missingFields.sort()).toEqual(['email', 'name']);
  });

  it.each([
    ['name', ''],
    ['name', 'x'.repeat(101)],
    ['name', 42],
    ['email', 'not-an-email'],
    ['email', `${'a'.repeat(90)}@example.com`],
    ['address', 'x'.repeat(101)],
    ['phone', '123456789'],
    ['phone', '123456789012345'],
    ['phone', '+441234567890'],
    ['phone', '44 1234 5678'],
    ['memberId', ''],
    ['memberId', 'm'.repeat(65)],
  ])('rejects %s = %j with INVALID_FORMAT naming the field', async (field, value) => {
    const before = await customerCount();
    const res = await create({ ...valid, [field]: value });
    expectProblem(res, 400, 'INVALID_FORMAT', 'VAL002', '/customers');
    expect(res.body.details.field).toBe(field);
    expect(await customerCount()).toBe(before);
  });

  it('accepts the exact bounds', async () => {
    const res = await create({
      name: 'n'.repeat(100),
      email: `${'e'.repeat(88)}@example.com`,
      address: 'a'.repeat(100),
      phone: '1234567890',
      memberId: 'm'.repeat(64),
    });
    expect(res.status).toBe(200);
    const longPhone = await create({ ...valid, phone: '12345678901234' });
    expect(longPhone.status).toBe(200);
  });

  it('rejects a body that is not JSON as a problem record', async () => {
    const res = await gw.call('POST', '/customers', {
      apiKey: m.apiKey,
      body: '{"name":',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 400,
      instance: '/customers',
      code: expect.any(String),
      requestId: res.headers.get('x-request-id'),
    });
  });
});

describe('memberId uniqueness', () => {
  it('answers 409 CONFLICT for a memberId the merchant already uses in that mode, on create and on change', async () => {
    const first = await create({ ...valid, memberId: 'dup-1' });
    expect(first.status).toBe(200);
    const again = await create({ ...valid, name: 'Other', memberId: 'dup-1' });
    expectProblem(again, 409, 'CONFLICT', 'CONFLICT', '/customers');
    expect(again.body.details).toEqual({ field: 'memberId', value: 'dup-1' });

    const second = await create({ ...valid, memberId: 'dup-2' });
    const path = `/customers/${second.body.id}`;
    const change = await gw.call('PATCH', path, { apiKey: m.apiKey, body: { memberId: 'dup-1' } });
    expectProblem(change, 409, 'CONFLICT', 'CONFLICT', path);
    const unchanged = await gw.call('GET', path, { apiKey: m.apiKey });
    expect(unchanged.body.memberId).toBe('dup-2');
  });

  it('lets another merchant, and the same merchant in live mode, use the same memberId', async () => {
    const owner = await gw.merchant({ withLiveKey: true });
    const other = await gw.merchant();
    expect(
      (await gw.call('POST', '/customers', { apiKey: owner.apiKey, body: { ...valid, memberId: 'x-1' } })).status,
    ).toBe(200);
    expect(
      (await gw.call('POST', '/customers', { apiKey: owner.liveKey, body: { ...valid, memberId: 'x-1' } })).status,
    ).toBe(200);
    expect(
      (await gw.call('POST', '/customers', { apiKey: other.apiKey, body: { ...valid, memberId: 'x-1' } })).status,
    ).toBe(200);
  });

  it('allows any number of customers without a memberId', async () => {
    expect((await create({ ...valid, memberId: null })).status).toBe(200);
    expect((await create(valid)).status).toBe(200);
  });
});

describe('PATCH /customers/{id} errors', () => {
  it('refuses a change with no known field, naming what can change', async () => {
    const { body: customer } = await create(valid);
    const path = `/customers/${customer.id}`;
    const empty = await gw.call('PATCH', path, { apiKey: m.apiKey, body: {} });
    expectProblem(empty, 400, 'VALIDATION_ERROR', 'VAL001', path);
    expect(empty.body.details.expectedAnyOf).toEqual(['name', 'email', 'address', 'phone', 'memberId', 'country']);

    const typo = await gw.call('PATCH', path, { apiKey: m.apiKey, body: { nmae: 'Typo' } });
    expectProblem(typo, 400, 'VALIDATION_ERROR', 'VAL001', path);
    expect(typo.headers.get('x-ignored-fields')).toBe('nmae');
  });

  it('applies the create bounds, and name and email cannot be cleared', async () => {
    const { body: customer } = await create(valid);
    const path = `/customers/${customer.id}`;
    for (const [field, value] of [
      ['name', null],
      ['email', null],
      ['email', 'nope'],
      ['phone', '12'],
      ['memberId', 'm'.repeat(65)],
    ] as const) {
      const res = await gw.call('PATCH', path, { apiKey: m.apiKey, body: { [field]: value } });
      expectProblem(res, 400, 'INVALID_FORMAT', 'VAL002', path);
      expect(res.body.details.field).toBe(field);
    }
    expect((await gw.call('GET', path, { apiKey: m.apiKey })).body).toEqual(customer);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await gw.call('PATCH', '/customers/987654321', { apiKey: m.apiKey, body: { name: 'X' } });
    expectProblem(res, 404, 'NOT_FOUND', 'NOT_FOUND', '/customers/987654321');
  });
});

describe('reads', () => {
  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectProblem(
      await gw.call('GET', '/customers/987654321', { apiKey: m.apiKey }),
      404,
      'NOT_FOUND',
      'NOT_FOUND',
      '/customers/987654321',
    );
    const bad = await gw.call('GET', '/customers/abc', { apiKey: m.apiKey });
    expectProblem(bad, 400, 'INVALID_FORMAT', 'VAL002', '/customers/abc');
    expect(bad.body.details.field).toBe('id');
  });

  it('rejects a bad page size or cursor', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=garbage']) {
      const res = await gw.call('GET', `/customers?${query}`, { apiKey: m.apiKey });
      expectProblem(res, 400, 'INVALID_FORMAT', 'VAL002', '/customers');
      expect(res.body.details.field).toBe(query.split('=')[0]);
    }
  });
});

describe('credential errors keep the error-guide shape', () => {
  it('401 without a key, with a wrong key, and with a bearer token', async () => {
    expectErrorGuide(await gw.call('GET', '/customers'), 401, 'INVALID_API_KEY');
    expectErrorGuide(
      await gw.call('POST', '/customers', { body: valid, apiKey: 'svc_test_sk_' + 'x'.repeat(40) }),
      401,
      'INVALID_API_KEY',
    );
    expectErrorGuide(
      await gw.call('GET', '/customers/1', { headers: { authorization: 'Bearer abc' } }),
      401,
      'INVALID_API_KEY',
    );
  });

  it('401 for a checkout token (customers are not on its allow-list)', async () => {
    const res = await gw.call('GET', '/customers', { headers: { 'x-checkout-token': 'cs_whatever' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'UNAUTHORIZED', code: 'AUTH001' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('403 for a suspended merchant, on reads and writes', async () => {
    const suspended = await gw.merchant({ status: 'suspended' });
    expectErrorGuide(await gw.call('GET', '/customers', { apiKey: suspended.apiKey }), 403, 'INSUFFICIENT_PERMISSIONS');
    expectErrorGuide(
      await gw.call('POST', '/customers', { apiKey: suspended.apiKey, body: valid }),
      403,
      'INSUFFICIENT_PERMISSIONS',
    );
  });

  it('a restricted merchant (no payments) still manages customers', async () => {
    const restricted = await gw.merchant({ status: 'restricted' });
    expect((await gw.call('POST', '/customers', { apiKey: restricted.apiKey, body: valid })).status).toBe(200);
  });
});
