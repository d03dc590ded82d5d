import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';

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
      expect(operation.responses['500'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorGuide' });
    }
    const ping = doc.paths['/ping'].get;
    expect(ping.security).toEqual([{ ApiKey: [] }]);
    expect(Object.keys(ping.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    const login = doc.paths['/auth/login'].post;
    expect(login.security).toEqual([]);
    expect(Object.keys(login.requestBody.content)).toEqual(['application/json', 'application/json-patch+json']);
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['email', 'password']);
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415', '429']));
    const rotate = doc.paths['/users/{userId}/apikey'].put;
    expect(rotate.security).toEqual([{ AccessToken: [] }]);
    expect(rotate.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'userId', in: 'path', required: true })]));
    expect(rotate.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'mode', in: 'query' })]));
    expect(doc.components.schemas.ErrorGuide.required).toEqual(['error', 'message', 'code', 'timestamp', 'requestId']);
  });

  it('documents only routes that are really served', async () => {
    for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(operations)) {
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const res = await gw.call(method.toUpperCase(), concrete);
        expect([404, 405], `${method} ${path} -> ${res.status}`).not.toContain(res.status);
      }
    }
  });
});

describe('GET /docs', () => {
  it('is an HTML page naming every route', async () => {
    const res = await gw.call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    for (const [method, path] of FOUNDATION_ROUTES) {
      expect(res.text).toContain(`<span class="m">${method.toUpperCase()}</span> <code>${path}</code>`);
    }
    expect(res.text).toContain('X-API-Key');
    expect(res.text).toContain('INVALID_API_KEY');
  });
});
