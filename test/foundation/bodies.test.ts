import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';

// POST /auth/login is the foundation's route with a body: {email, password}, both required strings.
const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const login = (body: unknown, contentType?: string) => gw.call('POST', '/auth/login', { body, contentType });

describe('request bodies', () => {
  it('accepts application/json, with or without a charset, and application/json-patch+json', async () => {
    const credentials = { email: m.email, password: m.password };
    expect((await login(credentials, 'application/json')).status).toBe(200);
    expect((await login(credentials, 'application/json; charset=utf-8')).status).toBe(200);
    expect((await login(credentials, 'application/json-patch+json')).status).toBe(200);
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    for (const text of ['{"email":', '{email: "a"}', "{'email':'a'}", '{"email":"a",}', 'undefined']) {
      const res = await login(text);
      expectErrorGuide(res, 'INVALID_JSON');
      expect(res.body.code).toBe('VAL003');
    }
  });

  it('answers a body over 64 KiB with 413', async () => {
    const res = await login({ email: m.email, password: 'x'.repeat(64 * 1024) });
    expectErrorGuide(res, 'PAYLOAD_TOO_LARGE');
    // Just under the limit is read (and then judged on its fields).
    const under = await login({ email: m.email, password: 'x'.repeat(60 * 1024) });
    expectErrorGuide(under, 'INVALID_FORMAT');
  });

  it('answers any other content type with 415', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
    ]) {
      expectErrorGuide(await login('email=a&password=b', type), 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('ignores unknown fields and names them in X-Ignored-Fields', async () => {
    const res = await login({
      email: m.email,
      password: m.password,
      birthDate: '1990-01-01',
      browser: { agent: 'x' },
      rememberMe: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('birthDate, browser, rememberMe');
    const clean = await login({ email: m.email, password: m.password });
    expect(clean.headers.get('x-ignored-fields')).toBeNull();
  });

  it('treats members named like Object.prototype properties as unknown fields too', async () => {
    const res = await login({
      email: m.email,
      password: m.password,
      constructor: 'x',
      toString: 'y',
      hasOwnProperty: 1,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-fields')).toBe('constructor, toString, hasOwnProperty');
  });

  it('names unknown members of any spelling percent-encoded, and the request that committed answers 200', async () => {
    const hostile = ['prénom', 'a\r\nSet-Cookie: x=1', '名前', '😀', 'tab\there', '100%', 'a, b'];
    const body = {
      amount: 12.5,
      currency: 'EUR',
      reference: 'ignored-names',
      ...Object.fromEntries(hostile.map((k) => [k, 1])),
    };
    const res = await gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-ignored-fields')!.split(', ').map(decodeURIComponent)).toEqual(hostile);
    // Created once: the client has its answer and no reason to retry.
    const list = await gw.call('GET', '/payment-requests?reference=ignored-names', { apiKey: m.apiKey });
    expect(list.body.data.map((r: { paymentRequestId: number }) => r.paymentRequestId)).toEqual([
      res.body.paymentRequestId,
    ]);
  });

  it('keeps X-Ignored-Fields to whole names within 2 KiB', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `unknownMember${i}`);
    const res = await login({ email: m.email, password: m.password, ...Object.fromEntries(names.map((k) => [k, 1])) });
    expect(res.status).toBe(200);
    const header = res.headers.get('x-ignored-fields')!;
    expect(header.length).toBeLessThanOrEqual(2048);
    const named = header.split(', ');
    expect(named).toEqual(names.slice(0, named.length));
  });

  it('names every missing required field in details.missingFields', async () => {
    for (const body of [{}, { remember: true }, '', undefined]) {
      const res = await gw.call('POST', '/auth/login', body === undefined ? {} : { body });
      expectErrorGuide(res, 'VALIDATION_ERROR');
      expect(res.body.details.missingFields).toEqual(['email', 'password']);
      expect(res.body.code).toBe('VAL001');
    }
    const one = await login({ email: m.email });
    expectErrorGuide(one, 'VALIDATION_ERROR');
    expect(one.body.details.missingFields).toEqual(['password']);
  });

  it('refuses a JSON body that is not an object', async () => {
    for (const text of ['[]', '"text"', '42', 'null']) {
      expectErrorGuide(await login(text), 'VALIDATION_ERROR');
    }
  });

  it('never coerces types: a number where a string belongs is 400 INVALID_FORMAT naming the field', async () => {
    const res = await login({ email: 12345, password: m.password });
    expectErrorGuide(res, 'INVALID_FORMAT');
    expect(res.body.details).toEqual({ field: 'email', value: 12345 });
    expect(res.body.code).toBe('VAL002');
    for (const email of [true, null, ['a@b.co'], { value: 'a@b.co' }]) {
      const wrong = await login({ email, password: m.password });
      expectErrorGuide(wrong, 'INVALID_FORMAT');
      expect(wrong.body.details.field).toBe('email');
    }
  });

  it('never echoes a rejected password', async () => {
    const res = await login({ email: m.email, password: 123456789012 });
    expectErrorGuide(res, 'INVALID_FORMAT');
    expect(res.body.details).toEqual({ field: 'password', value: '[redacted]' });
    expect(res.text).not.toContain('123456789012');
  });
});
