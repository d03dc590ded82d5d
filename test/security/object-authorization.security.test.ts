import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../proof/fuzz/contract.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import {
  objectKindOf,
  ownedObjects,
  pathWith,
  publishedOperations,
  validBodyOf,
  type ObjectKind,
  type Objects,
} from './routes.js';

/**
 * Object-level authorization over every operation of /openapi.json: two merchants, each with a
 * test and a live key. An object belongs to one merchant and one mode; every other key of the four
 * gets exactly the answer an id that does not exist gets (404, never data) and changes nothing.
 */
let gw: TestGateway;
let ops: Operation[];
let a: TestMerchant;
let b: TestMerchant;
const owned: { test?: Objects; live?: Objects } = {};

beforeAll(async () => {
  gw = await startTestGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
  ops = await publishedOperations(gw);
  a = await gw.merchant({ withLiveKey: true });
  b = await gw.merchant({ withLiveKey: true });
  owned.test = await ownedObjects(gw, a.apiKey, true);
  owned.live = await ownedObjects(gw, a.liveKey!, false); // live payments need a live processor (403), so no live payment
});
afterAll(async () => gw?.close());

const keyed = (op: Operation) => op.security.includes('ApiKey');

describe('every operation with an object id, with every key but the owner’s', () => {
  it('answers as for an id that does not exist (404), with no data', async () => {
    const foreign = (mode: 'test' | 'live') =>
      mode === 'test' ? [b.apiKey, b.liveKey!, a.liveKey!] : [b.apiKey, b.liveKey!, a.apiKey];
    let checks = 0;
    for (const op of ops.filter(keyed)) {
      const kind = objectKindOf(op);
      if (!kind || kind === 'user') continue;
      for (const mode of ['test', 'live'] as const) {
        const id = owned[mode]![kind];
        if (!id) continue;
        for (const apiKey of foreign(mode)) {
          const res = await gw.call(op.method, pathWith(op, id), { apiKey, body: validBodyOf(op) });
          const what = `${op.id} on ${mode} ${kind} ${id}: ${res.text}`;
          // 404, or the live key's 403 for payments without a live processor: the same answer as for an id that does not exist.
          expect([404, 403], what).toContain(res.status);
          const absent = await gw.call(op.method, pathWith(op, 9_000_000), { apiKey, body: validBodyOf(op) });
          expect([res.status, res.body.error], what).toEqual([absent.status, absent.body.error]);
          expect(res.text).not.toContain('owned');
          checks++;
        }
      }
    }
    // 12 operations name an object; each is tried with three foreign keys per mode it exists in.
    expect(checks).toBeGreaterThanOrEqual(50);
  });

  it('the owner’s own key reaches the same objects (so the 404s above are about ownership)', async () => {
    for (const op of ops.filter((o) => keyed(o) && o.method === 'GET' && objectKindOf(o))) {
      const id = owned.test![objectKindOf(op) as Exclude<ObjectKind, 'user'>];
      const res = await gw.call('GET', pathWith(op, id), { apiKey: a.apiKey });
      expect(res.status, `${op.id}: ${res.text}`).toBe(200);
    }
  });

  it('nothing the refused calls asked for happened', async () => {
    const { test, live } = owned;
    const get = (path: string, apiKey: string) => gw.call('GET', path, { apiKey }).then((res) => res.body);
    expect(await get(`/payments/${test!.payment}`, a.apiKey)).toMatchObject({
      status: 'authorized',
      amountCaptured: 0,
      amountRefunded: 0,
    });
    expect(await get(`/payment-requests/${test!.paymentRequest}`, a.apiKey)).toMatchObject({ status: 'authorized' });
    expect(await get(`/payment-requests/${live!.paymentRequest}`, a.liveKey!)).toMatchObject({ status: 'open' });
    for (const [mode, key] of [
      ['test', a.apiKey],
      ['live', a.liveKey!],
    ] as const) {
      expect(await get(`/customers/${owned[mode]!.customer}`, key)).toMatchObject({ name: 'Owned' });
      expect(await get(`/processor-connections/${owned[mode]!.connection}`, key)).toMatchObject({
        name: 'owned connection',
        priority: 0,
      });
      expect((await get(`/payments?paymentRequestId=${owned[mode]!.paymentRequest}`, key)).data ?? []).toHaveLength(
        mode === 'test' ? 1 : 0,
      );
    }
  });
});

describe('every list operation', () => {
  it('never shows another merchant’s or another mode’s objects', async () => {
    const lists = ops.filter((op) => keyed(op) && op.method === 'GET' && !objectKindOf(op) && op.path !== '/ping');
    expect(lists.map((op) => op.path).sort()).toEqual([
      '/callback-events',
      '/customers',
      '/events',
      '/notices',
      '/payment-requests',
      '/payment-requests/export/csv',
      '/payments',
      '/payments/export/csv',
      '/processor-connections',
      '/reports/dashboard',
      '/settings',
    ]);
    const ids = (body: any) => JSON.stringify(body);
    for (const apiKey of [b.apiKey, b.liveKey!]) {
      for (const op of lists) {
        const query = op.path === '/payments' ? `?paymentRequestId=${owned.test!.paymentRequest}` : '';
        const res = await gw.call('GET', `${op.path}${query}`, { apiKey });
        expect(res.status === 200 || res.status === 404, `${op.id}: ${res.text}`).toBe(true);
        expect(ids(res.body)).not.toContain('owned');
      }
    }
    const mine = await gw.call('GET', '/customers', { apiKey: a.apiKey });
    expect(ids(mine.body)).toContain('owned');
    for (const path of ['/payment-requests/export/csv', '/callback-events', '/processor-connections'])
      expect((await gw.call('GET', path, { apiKey: a.apiKey })).text).toContain('owned');
  });

  it('the dashboard counts only the caller’s own payments of its mode', async () => {
    const dashboard = async (apiKey: string) =>
      (await gw.call('GET', '/reports/dashboard', { apiKey })).body.days.map((d: any) => d.count);
    expect(await dashboard(a.apiKey)).toEqual([1]);
    for (const apiKey of [a.liveKey!, b.apiKey, b.liveKey!]) expect(await dashboard(apiKey)).toEqual([]);
  });
});

describe('the control-panel operations (access token)', () => {
  it('a user may only act on itself: another user’s id answers 403 and rotates nothing', async () => {
    const jwtOps = ops.filter((op) => op.security.includes('AccessToken'));
    expect(jwtOps.length).toBeGreaterThan(0);
    const login = await gw.call('POST', '/auth/login', { body: { email: b.email, password: b.password } });
    for (const op of jwtOps) {
      for (const mode of ['test', 'live']) {
        const res = await gw.call(op.method, `${pathWith(op, a.userId)}?mode=${mode}`, {
          headers: { authorization: `Bearer ${login.body.accessToken}` },
        });
        expect(res.status, `${op.id}: ${res.text}`).toBe(403);
      }
    }
    expect((await gw.call('GET', '/ping', { apiKey: a.apiKey })).status).toBe(200);
    expect((await gw.call('GET', '/ping', { apiKey: a.liveKey! })).status).toBe(200);
  });
});
