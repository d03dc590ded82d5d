import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { session } from '../team/fixtures.js';
import {
  ADYEN_LIVE,
  ADYEN_TEST,
  adyenBody,
  sandboxBody,
  SECRETS,
  STRIPE_LIVE,
  STRIPE_TEST,
  stripeBody,
} from './fixtures.js';

/** Who may see and change a merchant's processor connections, and the credentials a mode accepts. */
const gw = useGateway();

const create = (apiKey: string, body: unknown) => gw.call('POST', '/processor-connections', { apiKey, body });
const listOf = async (apiKey: string) => (await gw.call('GET', '/processor-connections', { apiKey })).body.data;

describe('credentials of the other mode', () => {
  it.each([
    ['a live Stripe key on a test key', 'test', stripeBody(STRIPE_LIVE), 'credentials.secretKey'],
    ['a test Stripe key on a live key', 'live', stripeBody(STRIPE_TEST), 'credentials.secretKey'],
    [
      'a publishable Stripe key',
      'test',
      stripeBody({ ...STRIPE_TEST, secretKey: 'pk_test_51PublishableKey' }),
      'credentials.secretKey',
    ],
    ['Adyen live environment in test mode', 'test', adyenBody(ADYEN_LIVE), 'credentials.environment'],
    ['Adyen test environment in live mode', 'live', adyenBody(ADYEN_TEST), 'credentials.environment'],
    ['the sandbox in live mode', 'live', sandboxBody(), 'processor'],
  ])('%s: 400 INVALID_FORMAT naming the field, nothing stored', async (_, mode, body, field) => {
    const m = await gw.merchant({ withLiveKey: true });
    const apiKey = mode === 'live' ? m.liveKey! : m.apiKey;
    const res = await create(apiKey, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field } });
    for (const secret of SECRETS) expect(res.text).not.toContain(secret);
    expect(await listOf(apiKey)).toEqual([]);
  });

  it('accepts the credentials of the mode: live Stripe and Adyen on a live key', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    expect((await create(m.liveKey!, stripeBody(STRIPE_LIVE))).status).toBe(201);
    expect((await create(m.liveKey!, adyenBody(ADYEN_LIVE))).status).toBe(201);
    expect((await listOf(m.liveKey!)).map((c: { mode: string }) => c.mode)).toEqual(['live', 'live']);
    expect(await listOf(m.apiKey)).toEqual([]);
  });

  it('a PATCH to credentials of the other mode is refused and changes nothing', async () => {
    const m = await gw.merchant();
    const { body: connection } = await create(m.apiKey, stripeBody());
    const res = await gw.call('PATCH', `/processor-connections/${connection.connectionId}`, {
      apiKey: m.apiKey,
      body: { credentials: STRIPE_LIVE, name: 'changed' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_FORMAT', details: { field: 'credentials.secretKey' } });
    expect(res.text).not.toContain(STRIPE_LIVE.secretKey);
    expect(await listOf(m.apiKey)).toEqual([connection]);
  });
});

describe('bad input changes nothing', () => {
  it.each([
    ['an unknown processor', { ...sandboxBody(), processor: 'paypal' }, 'INVALID_FORMAT'],
    ['no processor', { credentials: {}, slots: ['acme'] }, 'VALIDATION_ERROR'],
    ['an unknown slot', { ...sandboxBody(), slots: ['acme', 'visa'] }, 'INVALID_FORMAT'],
    ['no slot', { ...sandboxBody(), slots: [] }, 'INVALID_FORMAT'],
    ['a slot twice', { ...sandboxBody(), slots: ['acme', 'acme'] }, 'INVALID_FORMAT'],
    ['a fractional priority', { ...sandboxBody(), priority: 1.5 }, 'INVALID_FORMAT'],
    [
      'Stripe without its webhook secret',
      { ...stripeBody(), credentials: { secretKey: 'sk_test_1' } },
      'VALIDATION_ERROR',
    ],
    ['Adyen without credentials', { processor: 'adyen', slots: ['acme'] }, 'VALIDATION_ERROR'],
  ])('%s: 400 %s', async (_, body, error) => {
    const m = await gw.merchant();
    const res = await create(m.apiKey, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe(error);
    expect(await listOf(m.apiKey)).toEqual([]);
  });

  it('a wrong credential value is never echoed back', async () => {
    const m = await gw.merchant();
    const res = await create(m.apiKey, {
      ...stripeBody(),
      credentials: { ...STRIPE_TEST, webhookSecret: 'x'.repeat(600) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ field: 'credentials.webhookSecret', value: '[redacted]' });
  });

  it('an empty or invalid PATCH changes nothing', async () => {
    const m = await gw.merchant();
    const { body: connection } = await create(m.apiKey, stripeBody());
    const path = `/processor-connections/${connection.connectionId}`;
    for (const body of [{}, { slots: ['nowhere'] }, { priority: 'high' }, { slots: ['h2h'], priority: 2e9 }]) {
      const res = await gw.call('PATCH', path, { apiKey: m.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await listOf(m.apiKey)).toEqual([connection]);
  });
});

describe('access', () => {
  it("another merchant's or the other mode's connection is 404 on read, change and removal", async () => {
    const owner = await gw.merchant({ withLiveKey: true });
    const intruder = await gw.merchant();
    const { body: connection } = await create(owner.apiKey, stripeBody());
    const path = `/processor-connections/${connection.connectionId}`;
    for (const apiKey of [intruder.apiKey, owner.liveKey!]) {
      expect((await gw.call('GET', path, { apiKey })).status).toBe(404);
      expect((await gw.call('PATCH', path, { apiKey, body: { priority: 1 } })).status).toBe(404);
      expect((await gw.call('DELETE', path, { apiKey })).status).toBe(404);
      expect(await listOf(apiKey)).toEqual([]);
    }
    expect(await listOf(owner.apiKey)).toEqual([connection]);
  });

  it('a viewer reads them in the panel but cannot connect, change or remove one; a developer can', async () => {
    const m = await gw.merchant();
    const { body: connection } = await create(m.apiKey, stripeBody());
    const path = `/processor-connections/${connection.connectionId}`;
    const viewer = await session(gw, (await teammate(gw, m, 'viewer')).email);
    expect((await gw.call('GET', '/processor-connections', { ...viewer })).body.data).toEqual([connection]);
    expect((await gw.call('GET', path, { ...viewer })).body).toEqual(connection);
    for (const [method, url, body] of [
      ['POST', '/processor-connections', sandboxBody()],
      ['PATCH', path, { priority: 1 }],
      ['DELETE', path, undefined],
    ] as const) {
      const res = await gw.call(method, url, { ...viewer, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error).toBe('INSUFFICIENT_PERMISSIONS');
    }
    expect(await listOf(m.apiKey)).toEqual([connection]);

    const developer = await session(gw, (await teammate(gw, m, 'developer')).email);
    expect((await gw.call('PATCH', path, { ...developer, body: { priority: 1 } })).status).toBe(200);
  });

  it('without a credential: 401', async () => {
    expect((await gw.call('GET', '/processor-connections')).status).toBe(401);
    expect((await gw.call('POST', '/processor-connections', { body: sandboxBody() })).status).toBe(401);
  });
});
