import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// The front ends are not built yet: a small fixture build stands in for them (test/fixtures/front-ends).
const FIXTURE_BUILD = fileURLToPath(new URL('../fixtures/front-ends', import.meta.url));

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ http: { frontEndsDir: FIXTURE_BUILD } });
});
afterAll(async () => gw?.close());

describe('the built checkout and panel', () => {
  it('serve index.html at their paths, revalidated on every load', async () => {
    for (const [path, marker] of [
      ['/checkout/', 'id="checkout"'],
      ['/panel/', 'id="panel"'],
    ]) {
      const res = await gw.call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.text).toContain(marker);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });

  it('serve hashed assets as immutable for a year, with their content types', async () => {
    const js = await gw.call('GET', '/checkout/assets/index.8b2d4e6f.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await gw.call('GET', '/checkout/assets/index.5f3c9a1e.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('serve embed.js as a script and its types, embed.d.ts, as text (not as MPEG video), both revalidated', async () => {
    const script = await gw.call('GET', '/checkout/embed.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(script.headers.get('cache-control')).toBe('no-cache');
    const types = await gw.call('GET', '/checkout/embed.d.ts');
    expect(types.status).toBe(200);
    expect(types.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(types.headers.get('cache-control')).toBe('no-cache');
    expect(types.text).toContain("source: 'svc-checkout'");
  });

  it('compress what the client accepts', async () => {
    for (const encoding of ['gzip', 'br']) {
      const res = await fetch(`${gw.url}/checkout/assets/index.8b2d4e6f.js`, {
        headers: { 'accept-encoding': encoding },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(await res.text()).toContain('the quick brown fox');
    }
  });

  it("lets the checkout page be framed by the gateway's own origin only, while the API stays unframeable", async () => {
    const page = await gw.call('GET', '/checkout/');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain(`frame-ancestors ${new URL(gw.config.publicUrl).origin}`);
    expect(csp).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBeNull();
    const panel = await gw.call('GET', '/panel/');
    expect(panel.headers.get('x-frame-options')).toBe('DENY');
    const api = await gw.call('GET', '/healthz');
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('redirect the address a person types, without the slash, to the front end', async () => {
    for (const path of ['/panel', '/checkout']) {
      const res = await fetch(`${gw.url}${path}?from=bookmark`, { redirect: 'manual' });
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location')).toBe(`${path}/?from=bookmark`);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });

  it('answer a missing file with our 404', async () => {
    const res = await gw.call('GET', '/checkout/assets/missing.0000aaaa.js');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'NOT_FOUND', requestId: expect.stringMatching(/^req_/) });
  });
});
