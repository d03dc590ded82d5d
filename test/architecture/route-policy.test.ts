import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { RouteCatalog } from '../../src/http/not-found.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { createRequest, mintToken } from '../payment-requests/fixtures.js';
import { session } from '../team/fixtures.js';

/** The routes listed under a heading of docs/decisions.md, as "METHOD /path/{param}". */
function listedUnder(heading: string): string[] {
  const text = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`docs/decisions.md has no section "${heading}"`);
  return [...section.matchAll(/^- `(GET|POST|PUT|PATCH|DELETE) (\S+)`/gm)].map(
    ([, method, path]) => `${method} ${path}`,
  );
}

const gw = useGateway();
const declared = () => gw.gateway.app.routeCatalog.declared();
/** A path of the route with every parameter filled in. */
const pathOf = (url: string, value: number | string) => url.replace(/:\w+/g, String(value));
/** An empty JSON body where the method takes one. */
const emptyBody = (method: string) => (method === 'GET' ? {} : { body: {} });

describe('route policy', () => {
  it('lets checkout session tokens call exactly the routes decisions.md allows, bound to {id}', () => {
    const admitting = declared().filter((route) => route.config.checkoutToken);
    const inCode = admitting.map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(inCode.sort()).toEqual(listedUnder('Checkout session token allow-list').sort());
    expect(admitting.map((route) => route.config.checkoutToken!.boundParam)).toEqual(admitting.map(() => 'id'));
  });

  it('refuses a checkout token on its routes for another payment request, and on a route not admitting tokens', async () => {
    const m = await gw.merchant();
    const own = await createRequest(gw, m.apiKey);
    const other = await createRequest(gw, m.apiKey);
    const token = await mintToken(gw, m.apiKey, own.paymentRequestId);
    const headers = { 'x-checkout-token': token };
    for (const route of declared().filter((r) => r.config.checkoutToken)) {
      const res = await gw.call(route.method, pathOf(route.url, other.paymentRequestId), {
        headers,
        ...emptyBody(route.method),
      });
      expect(res.status, `${route.method} ${route.url}`).toBe(403);
      expectErrorGuide(res, 'FORBIDDEN');
    }
    const read = await gw.call('GET', `/payment-requests/${own.paymentRequestId}`, { headers });
    expect(read.status, read.text).toBe(200);
    // HEAD takes its GET's policy.
    expect((await gw.call('HEAD', `/payment-requests/${own.paymentRequestId}`, { headers })).status).toBe(200);
    const refused = await gw.call('GET', `/payment-requests/${own.paymentRequestId}/timeline`, { headers });
    expect(refused.status).toBe(403);
    expectErrorGuide(refused, 'FORBIDDEN');
  });

  it('refuses the roles a route does not name, and only those', async () => {
    const m = await gw.merchant();
    const limited = declared().filter((route) => route.config.roles);
    expect(limited.length).toBeGreaterThan(0);
    for (const role of ['viewer', 'developer', 'owner'] as const) {
      const user = await teammate(gw, m, role);
      const signed = await session(gw, user.email);
      for (const route of limited) {
        const res = await gw.call(route.method, pathOf(route.url, 999999999), {
          ...signed,
          ...emptyBody(route.method),
        });
        const what = `${role} on ${route.method} ${route.url}`;
        if (route.config.roles!.includes(role)) expect(res.status, what).not.toBe(403);
        else {
          expect(res.status, what).toBe(403);
          expectErrorGuide(res, 'INSUFFICIENT_PERMISSIONS');
        }
      }
    }
  });

  it('declares auth on every route of the running gateway', () => {
    expect(declared().filter((route) => route.config.auth === undefined)).toEqual([]);
  });

  it('fails the start when a route declares no auth', async () => {
    const app = Fastify();
    const catalog = new RouteCatalog();
    app.addHook('onRoute', (route) => catalog.add(route));
    app.addHook('onReady', async () => catalog.assertComplete());
    app.get('/declared', { config: { auth: 'none' } }, async () => 'ok');
    app.get('/forgotten', async () => 'ok');
    await expect(app.ready()).rejects.toThrow(/GET \/forgotten declares no auth/);
    await app.close();
  });

  it('fails the start when routes of one resource answer different error shapes', async () => {
    const app = Fastify();
    const catalog = new RouteCatalog();
    app.addHook('onRoute', (route) => catalog.add(route));
    app.addHook('onReady', async () => catalog.assertComplete());
    app.get('/things', { config: { auth: 'none', errorShape: 'problem' } }, async () => 'ok');
    app.get('/things/:id', { config: { auth: 'none' } }, async () => 'ok');
    await expect(app.ready()).rejects.toThrow(/\/things\/:id answers error-guide errors but \/things answers problem/);
    await app.close();
  });
});
