import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { sign } from './helpers.js';

const gw = useGateway();

const lastRow = (source: 'test/json' | 'test/form' | 'test/text') =>
  gw.db
    .selectFrom('callback_events')
    .selectAll()
    .where('source', '=', source)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();

describe('POST /callbacks/test/json', () => {
  it('accepts any JSON without a signature and records it', async () => {
    const body = { eventId: 'evt_test_1', anything: { nested: [1, 2, 3] } };
    const res = await gw.call('POST', '/callbacks/test/json', { body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, eventId: 'evt_test_1' });
    const row = await lastRow('test/json');
    expect(row).toMatchObject({
      event_id: 'evt_test_1',
      payload: body,
      signature_valid: null,
      received_at: gw.clock.now(),
    });
  });

  it('accepts documents of any shape, and no body at all', async () => {
    for (const body of ['[1,2]', '"text"', '42', '{}']) {
      const res = await gw.call('POST', '/callbacks/test/json', { body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, eventId: null });
      expect((await lastRow('test/json')).payload).toEqual(JSON.parse(body));
    }
    const empty = await gw.call('POST', '/callbacks/test/json');
    expect(empty.status).toBe(200);
    expect((await lastRow('test/json')).payload).toBeNull();
  });

  it('reports whether a signature it was sent verifies, and never refuses the call for it', async () => {
    const raw = JSON.stringify({ eventId: 'evt_test_2', hello: 'world' });
    const cases: Array<[string, boolean]> = [
      [sign(gw, raw), true],
      [sign(gw, raw).toUpperCase(), true],
      [sign(gw, raw, 'sha256'), true],
      [sign(gw, `${raw} `), false],
      ['0'.repeat(128), false],
      ['not-hex', false],
      ['', false],
    ];
    for (const [signature, expected] of cases) {
      const res = await gw.call('POST', '/callbacks/test/json', {
        body: raw,
        headers: { 'x-webhook-signature': signature },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, eventId: 'evt_test_2', signatureValid: expected });
      expect((await lastRow('test/json')).signature_valid).toBe(expected);
    }
  });

  it('records every call, even with an eventId it has seen', async () => {
    const body = { eventId: 'evt_test_repeat' };
    await gw.call('POST', '/callbacks/test/json', { body });
    await gw.call('POST', '/callbacks/test/json', { body });
    const rows = await gw.db
      .selectFrom('callback_events')
      .select('id')
      .where('source', '=', 'test/json')
      .where('event_id', '=', 'evt_test_repeat')
      .execute();
    expect(rows).toHaveLength(2);
  });

  it('does not take form bodies', async () => {
    const res = await gw.call('POST', '/callbacks/test/json', {
      body: 'a=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('is logged like the provider callbacks', async () => {
    await gw.call('POST', '/callbacks/test/json', { body: { eventId: 'evt_test_logged' } });
    const line = gw
      .logs()
      .split('\n')
      .find((l) => l.includes('callback received') && l.includes('evt_test_logged'));
    expect(JSON.parse(line!).callback).toMatchObject({
      source: 'test/json',
      eventId: 'evt_test_logged',
      signatureValid: null,
    });
  });
});

describe('POST /callbacks/test/form', () => {
  const form = 'eventId=evt_form_1&status=success&tag=a&tag=b&note=hello+world%21';

  it('accepts a form body without a signature and records its fields', async () => {
    const res = await gw.call('POST', '/callbacks/test/form', {
      body: form,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, eventId: 'evt_form_1' });
    const row = await lastRow('test/form');
    expect(row.payload).toEqual({ eventId: 'evt_form_1', status: 'success', tag: ['a', 'b'], note: 'hello world!' });
    expect(row.signature_valid).toBeNull();
  });

  it('verifies a signature over the raw form bytes', async () => {
    const good = await gw.call('POST', '/callbacks/test/form', {
      body: form,
      contentType: 'application/x-www-form-urlencoded',
      headers: { 'x-webhook-signature': sign(gw, form) },
    });
    expect(good.body).toEqual({ received: true, eventId: 'evt_form_1', signatureValid: true });
    const bad = await gw.call('POST', '/callbacks/test/form', {
      body: form.replace('success', 'failed'),
      contentType: 'application/x-www-form-urlencoded',
      headers: { 'x-webhook-signature': sign(gw, form) },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.signatureValid).toBe(false);
  });

  it('treats a field named __proto__ as a plain field', async () => {
    const res = await gw.call('POST', '/callbacks/test/form', {
      body: '__proto__=x&a=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(200);
    expect((await lastRow('test/form')).payload).toEqual({ ['__proto__']: 'x', a: '1' });
  });

  it('is the only route that takes form bodies', async () => {
    const res = await gw.call('POST', '/auth/login', {
      body: 'email=a&password=b',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
  });
});

describe('GET /callbacks/test/text', () => {
  it('answers plain text and records the query parameters', async () => {
    const res = await gw.call('GET', '/callbacks/test/text?eventId=evt_text_1&status=success');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('received: true\neventId: evt_text_1\n');
    const row = await lastRow('test/text');
    expect(row).toMatchObject({
      event_id: 'evt_text_1',
      payload: { query: { eventId: 'evt_text_1', status: 'success' } },
      signature_valid: null,
    });
  });

  it('verifies a signature over the raw query string, or over nothing when there is none', async () => {
    const query = 'eventId=evt_text_2&amount=1050';
    const good = await gw.call('GET', `/callbacks/test/text?${query}`, {
      headers: { 'x-webhook-signature': sign(gw, query) },
    });
    expect(good.text).toBe('received: true\neventId: evt_text_2\nsignatureValid: true\n');
    const tampered = await gw.call('GET', `/callbacks/test/text?${query}0`, {
      headers: { 'x-webhook-signature': sign(gw, query) },
    });
    expect(tampered.status).toBe(200);
    expect(tampered.text).toContain('signatureValid: false');
    expect((await lastRow('test/text')).signature_valid).toBe(false);

    const bare = await gw.call('GET', '/callbacks/test/text', { headers: { 'x-webhook-signature': sign(gw, '') } });
    expect(bare.text).toBe('received: true\neventId: \nsignatureValid: true\n');
  });
});

describe('secrets a test call carries', () => {
  const SECRET = 'AAABCZIhcQAAAABZlyFxAAAAAAA=';

  it('are redacted, at any depth and in any letter case, before the call is stored', async () => {
    const body = {
      eventId: 'evt_secrets',
      authenticationValue: SECRET,
      threeDs: { CAVV: SECRET, eci: '05' },
      card: [{ cvv: '7391', last4: '4242' }],
    };
    const json = await gw.call('POST', '/callbacks/test/json', { body });
    expect(json.status).toBe(200);
    const row = await lastRow('test/json');
    expect(row.payload).toEqual({
      eventId: 'evt_secrets',
      authenticationValue: '[redacted]',
      threeDs: { CAVV: '[redacted]', eci: '05' },
      card: [{ cvv: '[redacted]', last4: '4242' }],
    });
    expect(JSON.stringify(row)).not.toMatch(new RegExp(`${SECRET.slice(0, 12)}|7391`));

    const form = await gw.call('POST', '/callbacks/test/form', {
      body: `eventId=evt_form_secrets&cavv=${encodeURIComponent(SECRET)}&cvc=7391&status=ok`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(200);
    const formRow = await lastRow('test/form');
    expect(formRow.payload).toMatchObject({ cavv: '[redacted]', cvc: '[redacted]', status: 'ok' });
    expect(JSON.stringify(formRow)).not.toMatch(new RegExp(`${SECRET.slice(0, 12)}|7391`));

    await gw.call('GET', `/callbacks/test/text?eventId=evt_text_secrets&tavv=${encodeURIComponent(SECRET)}`);
    expect(JSON.stringify(await lastRow('test/text'))).not.toContain(SECRET.slice(0, 12));
  });
});
