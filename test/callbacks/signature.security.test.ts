import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway, type CallResult } from '../helpers/gateway.js';
import { eventRows, postSigned, providerCallback, sign } from './helpers.js';

const gw = useGateway();

const RECEIVERS = ['/callbacks/svc', '/callbacks/svc-gateway', '/callbacks/svcwh', '/callbacks/3ds'];
const threeDs = () =>
  providerCallback({ status: 'success', threeDsResult: 'Y', eci: '05', authenticationValue: 'AAAB' });
const bodyFor = (path: string) =>
  path.endsWith('3ds') ? threeDs() : providerCallback({ status: path.endsWith('svcwh') ? 'refunded' : 'success' });

function expectRejected(res: CallResult, reason: 'missing' | 'malformed' | 'mismatch') {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error: 'INVALID_WEBHOOK_SIGNATURE', code: 'WH001', details: { reason } });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
}

describe('accepted signatures', () => {
  it.each([
    ['HMAC-SHA512, lower-case hex', 'sha512', (s: string) => s],
    ['HMAC-SHA512, upper-case hex', 'sha512', (s: string) => s.toUpperCase()],
    ['HMAC-SHA256, lower-case hex', 'sha256', (s: string) => s],
    ['HMAC-SHA256, upper-case hex', 'sha256', (s: string) => s.toUpperCase()],
  ] as const)('%s of the raw body', async (_name, algorithm, letterCase) => {
    for (const path of RECEIVERS) {
      const body = bodyFor(path);
      const raw = JSON.stringify(body);
      const res = await postSigned(gw, path, raw, { signature: letterCase(sign(gw, raw, algorithm)) });
      expect(res.status, path).toBe(200);
      expect(await eventRows(gw, path.split('/').pop()!, body.eventId as string)).toHaveLength(1);
    }
  });

  it('covers the bytes exactly as sent, whatever their formatting', async () => {
    const body = providerCallback();
    const raw = `{\n  "eventId": ${JSON.stringify(body.eventId)},\n  "transactionId": "t1", "status": "success",\n  "amount": 1050, "currency": "EUR", "timestamp": "2026-03-01T12:00:00Z", "providerData": {}\n}\n`;
    const res = await postSigned(gw, '/callbacks/svc', raw);
    expect(res.status).toBe(200);
  });

  it('may sign a body sent as application/json with a charset', async () => {
    const raw = JSON.stringify(providerCallback());
    const res = await postSigned(gw, '/callbacks/svc', raw, {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });
});

describe('every signature problem answers 401 WH001, never 500, and stores nothing', () => {
  const valid = (raw: string) => sign(gw, raw);
  const cases: Array<[string, (raw: string) => string | undefined, 'missing' | 'malformed' | 'mismatch']> = [
    ['a missing header', () => undefined, 'missing'],
    ['an empty header', () => '', 'missing'],
    ['an odd number of hex digits', (raw) => valid(raw).slice(1), 'malformed'],
    ['a non-hex character', (raw) => `${valid(raw).slice(0, 127)}g`, 'malformed'],
    ['a length that is neither SHA-512 nor SHA-256 (96)', (raw) => valid(raw).slice(0, 96), 'malformed'],
    [
      'a length that is neither SHA-512 nor SHA-256 (40, SHA-1)',
      (raw) => createHmac('sha1', 'x').update(raw).digest('hex'),
      'malformed',
    ],
    ['an algorithm prefix', (raw) => `sha512=${valid(raw)}`, 'malformed'],
    ['base64 instead of hex', (raw) => createHmac('sha512', 'x').update(raw).digest('base64'), 'malformed'],
    ['surrounding text', (raw) => `${valid(raw)} ,x`, 'malformed'],
    [
      'an HMAC-SHA512 with another secret',
      (raw) => createHmac('sha512', 'not-the-secret').update(raw).digest('hex'),
      'mismatch',
    ],
    [
      'an HMAC-SHA256 with another secret',
      (raw) => createHmac('sha256', 'not-the-secret').update(raw).digest('hex'),
      'mismatch',
    ],
    ['a plain SHA-512 hash with no key', (raw) => createHmac('sha512', '').update(raw).digest('hex'), 'mismatch'],
    ['the signature of another body', () => valid('{}'), 'mismatch'],
    ['128 zeros', () => '0'.repeat(128), 'mismatch'],
  ];

  it.each(cases)('%s', async (_name, signatureOf, reason) => {
    for (const path of RECEIVERS) {
      const body = bodyFor(path);
      const raw = JSON.stringify(body);
      const signature = signatureOf(raw);
      const res = await gw.call('POST', path, {
        body: raw,
        headers: signature === undefined ? {} : { 'x-webhook-signature': signature },
      });
      expectRejected(res, reason);
      expect(await eventRows(gw, path.split('/').pop()!, body.eventId as string)).toHaveLength(0);
    }
  });

  it('a body altered after signing', async () => {
    const body = providerCallback();
    const raw = JSON.stringify(body);
    const signature = sign(gw, raw);
    for (const altered of [
      raw.replace('"amount":1050', '"amount":1'),
      raw.replace('success', 'failed'),
      `${raw} `,
      raw.slice(0, -1) + ',"x":1}',
    ]) {
      const res = await gw.call('POST', '/callbacks/svc', {
        body: altered,
        headers: { 'x-webhook-signature': signature },
      });
      expectRejected(res, 'mismatch');
    }
    expect(await eventRows(gw, 'svc', body.eventId as string)).toHaveLength(0);
  });

  it('is checked before the body is parsed or validated, so a forged body learns nothing about the schema', async () => {
    const forged = [
      JSON.stringify({ eventId: 'e1' }), // missing fields
      JSON.stringify({ ...providerCallback(), amount: 'lots', unknownMember: 1 }), // bad field, unknown member
      '{"eventId": ', // not JSON
      '{"__proto__": {"admin": true}}', // prototype pollution attempt
      '[]',
    ];
    for (const raw of forged) {
      const res = await gw.call('POST', '/callbacks/svc', {
        body: raw,
        headers: { 'x-webhook-signature': '0'.repeat(128) },
      });
      expectRejected(res, 'mismatch');
      expect(res.headers.get('x-ignored-fields')).toBeNull();
    }
  });

  it('a request with no body at all', async () => {
    const res = await gw.call('POST', '/callbacks/svc');
    expectRejected(res, 'missing');
    const withSignature = await gw.call('POST', '/callbacks/svc', {
      headers: { 'x-webhook-signature': 'ab'.repeat(64) },
    });
    expectRejected(withSignature, 'mismatch');
  });

  it('is logged as a warning with the reason, without the body', async () => {
    const body = providerCallback({ providerData: { reference: 'pay_log_check_77' } });
    await gw.call('POST', '/callbacks/svcwh', { body, headers: { 'x-webhook-signature': 'zz' } });
    const line = gw
      .logs()
      .split('\n')
      .reverse()
      .find((l) => l.includes('callback signature rejected'));
    expect(JSON.parse(line!)).toMatchObject({ level: 40, route: '/callbacks/svcwh', reason: 'malformed' });
    expect(gw.logs()).not.toContain('pay_log_check_77');
  });
});

describe('once the signature verifies', () => {
  it('a body that is not JSON answers 400 (a malformed body, not a signature problem)', async () => {
    const res = await postSigned(gw, '/callbacks/svc', '{"eventId": ');
    expect(res.status).toBe(400);
    expect(res.body.code).not.toBe('WH001');
  });

  it('an empty body answers 400 VALIDATION_ERROR', async () => {
    const res = await postSigned(gw, '/callbacks/svc', '');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
  });
});
