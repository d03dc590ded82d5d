import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw?.close());

describe('ping', () => {
  it('answers an API key with status, message and timestamp', async () => {
    const m = await gw.merchant();
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
