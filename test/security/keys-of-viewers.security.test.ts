import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../proof/fuzz/contract.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { session, type Signed } from '../team/fixtures.js';
import { objectKindOf, ownedObjects, pathWith, publishedOperations, validBodyOf, type Objects } from './routes.js';

/**
 * A key acts within its owner's role (docs/decisions.md "Team"): a viewer holds no API key, so demoting a
 * developer through the team API revokes their keys in the same change, as removing them does. Then every
 * API-key operation of /openapi.json — each write (every method but GET), so a new one is covered the day it
 * is added, and each read — answers 401 INVALID_API_KEY with those keys and changes nothing, and the audit
 * log shows no viewer acting.
 */
let gw: TestGateway;
let ops: Operation[];
let m: TestMerchant;
let owner: Signed;
beforeAll(async () => {
  gw = await startTestGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
  ops = await publishedOperations(gw);
  m = await gw.merchant();
  owner = await session(gw, m.email);
});
afterAll(async () => gw?.close());

const keyed = () => ops.filter((op) => op.security.includes('ApiKey'));
const writes = () => keyed().filter((op) => op.method !== 'GET');

/** A developer of the merchant with a test and a live key, and objects their test key made. */
async function developerWithKeys() {
  const dev = await teammate(gw, m, 'developer');
  const signed = await session(gw, dev.email);
  const keys: string[] = [];
  for (const mode of ['test', 'live']) {
    const rotated = await gw.call('PUT', `/users/${dev.userId}/apikey?mode=${mode}`, signed);
    expect(rotated.status, rotated.text).toBe(200);
    keys.push(rotated.body as string);
  }
  const objects = await ownedObjects(gw, keys[0], true);
  return { ...dev, session: signed, keys, objects };
}

/** Every API-key operation with `apiKey`, on the objects it names: each answer, by operation. */
async function everyOperation(apiKey: string, objects: Objects) {
  const answers = [];
  for (const op of keyed()) {
    const kind = objectKindOf(op);
    const id = kind && kind !== 'user' ? objects[kind] : 1;
    const res = await gw.call(op.method, pathWith(op, id), { apiKey, body: validBodyOf(op) });
    answers.push({ op: op.id, res });
  }
  return answers;
}

/** What the refused calls would have changed, read with the merchant owner's own key. */
async function stateOf(objects: Objects) {
  const get = async (path: string) => (await gw.call('GET', path, { apiKey: m.apiKey })).body;
  return {
    payment: await get(`/payments/${objects.payment}`),
    request: await get(`/payment-requests/${objects.paymentRequest}`),
    customer: await get(`/customers/${objects.customer}`),
    connection: await get(`/processor-connections/${objects.connection}`),
    requests: (await get('/payment-requests?limit=100')).data.length,
    customers: (await get('/customers?limit=100')).data.length,
    settings: await get('/settings'),
  };
}

const removals = {
  'demoted to viewer': async (userId: number) => {
    const res = await gw.call('PATCH', `/team/members/${userId}`, { ...owner, body: { role: 'viewer' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ userId, role: 'viewer', apiKeysRevoked: 2 });
    return 'team.role_changed';
  },
  'removed from the team': async (userId: number) => {
    const res = await gw.call('DELETE', `/team/members/${userId}`, owner);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ userId, removed: true, apiKeysRevoked: 2 });
    return 'team.member_removed';
  },
};

describe.each(Object.entries(removals))('the API keys of a developer %s', (_, takeAway) => {
  it('answer 401 INVALID_API_KEY on every write and every read, and change nothing', async () => {
    const dev = await developerWithKeys();
    // Their key writes while they are a developer: a new write route is one the sweep below must refuse.
    const before = await gw.call('PATCH', `/customers/${dev.objects.customer}`, {
      apiKey: dev.keys[0],
      body: { name: 'Owned' },
    });
    expect(before.status, before.text).toBe(200);
    const state = await stateOf(dev.objects);

    const action = await takeAway(dev.userId);

    expect(writes().length).toBeGreaterThanOrEqual(15);
    let checks = 0;
    for (const key of dev.keys) {
      for (const { op, res } of await everyOperation(key, dev.objects)) {
        expect([res.status, res.body?.error], `${op}: ${res.text}`).toEqual([401, 'INVALID_API_KEY']);
        expectErrorGuide(res, 'INVALID_API_KEY');
        checks++;
      }
    }
    expect(checks).toBe(2 * keyed().length);
    expect(await stateOf(dev.objects)).toEqual(state);

    // The audit log: the owner took the keys away, and nobody acted with them since.
    const log = await gw.call('GET', '/audit-log?limit=100', owner);
    expect(log.status, log.text).toBe(200);
    const entries = log.body.data.map((e: any) => [e.action, e.by]);
    expect(entries.slice(0, 4)).toEqual([
      [action, m.email],
      // ownedObjects connected a processor with the developer's test key.
      ['processor_connection.created', dev.email],
      ['api_key.rotated', dev.email],
      ['api_key.rotated', dev.email],
    ]);
  });
});

describe('a developer demoted to viewer', () => {
  it('reads in the panel and sees no key; promoted again, their old keys stay revoked until they make new ones', async () => {
    const dev = await developerWithKeys();
    await removals['demoted to viewer'](dev.userId);
    // Where the demoted person sees what happened: their key list is empty; the panel still reads.
    const keys = await gw.call('GET', `/users/${dev.userId}/apikeys`, dev.session);
    expect([keys.status, keys.body]).toEqual([200, []]);
    expect((await gw.call('GET', `/payments/${dev.objects.payment}`, dev.session)).status).toBe(200);
    expectErrorGuide(await gw.call('PUT', `/users/${dev.userId}/apikey`, dev.session), 'INSUFFICIENT_PERMISSIONS');

    const promoted = await gw.call('PATCH', `/team/members/${dev.userId}`, { ...owner, body: { role: 'developer' } });
    expect(promoted.body).toMatchObject({ role: 'developer', apiKeysRevoked: 0 });
    for (const key of dev.keys) expectErrorGuide(await gw.call('GET', '/ping', { apiKey: key }), 'INVALID_API_KEY');
    const fresh = await gw.call('PUT', `/users/${dev.userId}/apikey`, dev.session);
    expect(fresh.status, fresh.text).toBe(200);
    expect((await gw.call('GET', '/ping', { apiKey: fresh.body })).status).toBe(200);
  });

  it('an owner or developer keeps their keys through a role change that is not to viewer', async () => {
    const dev = await developerWithKeys();
    const promoted = await gw.call('PATCH', `/team/members/${dev.userId}`, { ...owner, body: { role: 'owner' } });
    expect(promoted.body).toMatchObject({ role: 'owner', apiKeysRevoked: 0 });
    const back = await gw.call('PATCH', `/team/members/${dev.userId}`, { ...owner, body: { role: 'developer' } });
    expect(back.body).toMatchObject({ role: 'developer', apiKeysRevoked: 0 });
    for (const key of dev.keys) expect((await gw.call('GET', '/ping', { apiKey: key })).status).toBe(200);
  });
});
