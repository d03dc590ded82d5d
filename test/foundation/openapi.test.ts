import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { dereference } from '../../proof/fuzz/contract.js';

const gw = useGateway();
let doc: any;
beforeAll(async () => {
  doc = (await gw.call('GET', '/openapi.json')).body;
});

const FOUNDATION_ROUTES = [
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/ping'],
  ['post', '/auth/login'],
  ['put', '/users/{userId}/apikey'],
];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3 document served without credentials', async () => {
    const res = await gw.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '2.1' });
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('describes every route with a summary, its credentials and its error responses', () => {
    for (const [method, path] of FOUNDATION_ROUTES) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary).toEqual(expect.any(String));
      expect(operation.responses['200']).toBeDefined();
      expect(operation.responses['500'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorGuide',
      });
    }
    const ping = doc.paths['/ping'].get;
    expect(ping.security).toEqual([{ ApiKey: [] }]);
    expect(Object.keys(ping.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    const login = doc.paths['/auth/login'].post;
    expect(login.security).toEqual([]);
    expect(Object.keys(login.requestBody.content)).toEqual(['application/json', 'application/json-patch+json']);
    expect(dereference(doc, login.requestBody.content['application/json'].schema).required).toEqual([
      'email',
      'password',
    ]);
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415', '429']));
    const rotate = doc.paths['/users/{userId}/apikey'].put;
    expect(rotate.security).toEqual([{ AccessToken: [] }]);
    expect(rotate.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'userId', in: 'path', required: true })]),
    );
    expect(rotate.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'mode', in: 'query' })]));
    expect(doc.components.schemas.ErrorGuide.required).toEqual(['error', 'message', 'code', 'timestamp', 'requestId']);
  });

  it('documents only routes that are really served', async () => {
    for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(operations)) {
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const res = await gw.call(method.toUpperCase(), concrete);
        expect(res.status, `${method} ${path} -> ${res.status}`).not.toBe(405);
        // A served route may answer 404 for the record its path names (a webhook receiver's unknown
        // connection, which needs no credential); no route at all answers "No route …".
        if (res.status === 404)
          expect(String(res.body?.message), `${method} ${path} -> ${res.text}`).not.toMatch(/^No route /);
      }
    }
  });
});

describe('GET /docs', () => {
  it('is the reference page (Swagger UI) over /openapi.json, naming every route and error there', async () => {
    const res = await gw.call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const initializer = await gw.call('GET', '/docs/static/swagger-initializer.js');
    expect(initializer.text).toContain("resolveUrl('./json')");
    const rendered = (await gw.call('GET', '/docs/json')).body;
    expect(rendered).toEqual(doc);
    for (const [method, path] of FOUNDATION_ROUTES)
      expect(rendered.paths[path][method].summary).toEqual(expect.any(String));
    expect(JSON.stringify(rendered)).toContain('X-API-Key');
    expect(rendered.info.description).toContain('<a id="error-INVALID_API_KEY"></a>`INVALID_API_KEY`');
  });

  it('loads nothing from another origin, and its CSP allows no other origin', async () => {
    const res = await gw.call('GET', '/docs');
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset, asset).not.toMatch(/^(https?:)?\/\//);
      expect((await gw.call('GET', new URL(asset, `${gw.url}/docs`).pathname)).status, asset).toBe(200);
    }
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
  });
});

describe('error responses in the document', () => {
  it('declares the answers every operation can give, with their body schemas', () => {
    const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, op } of operations) {
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['500', '503']));
      if (!['/healthz', '/readyz'].includes(path))
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '429']));
      if (method === 'post') expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
      if (op.security.length > 0) expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403']));
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect(response.content, `${method} ${path} ${status}`).toBeDefined();
      }
    }
    expect(Object.keys(doc.paths['/auth/login'].post.responses)).toContain('401');
    expect(Object.keys(doc.paths['/callbacks/svc'].post.responses)).toContain('401');
    expect(doc.paths['/payments/{paymentId}'].get.responses['404'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
  });

  it('probes answer whatever X-API-Version says', async () => {
    for (const probe of ['/healthz', '/readyz']) {
      for (const version of ['garbage', '1.0', '9.9', '']) {
        const res = await gw.call('GET', probe, { headers: { 'x-api-version': version } });
        expect(res.status, `${probe} ${version}`).toBe(200);
      }
      expect(Object.keys(doc.paths[probe].get.responses).sort()).toEqual(['200', '500', '503']);
    }
  });
});
