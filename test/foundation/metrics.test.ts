import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, useGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, decideChallenge, h2hCard } from '../payments/fixtures.js';

const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

/** One sample's value from Prometheus' text format, by metric name and a label subset. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const have = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (have) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics with METRICS_TOKEN', () => {
  const gw = useGateway({ env: { METRICS_TOKEN: TOKEN } });
  let m: TestMerchant;
  beforeAll(async () => {
    m = await gw.merchant();
  });
  const scrape = () => gw.call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });

  it('refuses a scrape without the token, or with another, as 401 and shows nothing', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { 'x-api-key': m.apiKey },
    ];
    for (const headers of attempts) {
      const res = await gw.call('GET', '/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'UNAUTHORIZED' });
      expect(res.text).not.toContain('svc_http');
    }
  });

  it('counts answers by route and status, processor calls, payments by status and the key cache', async () => {
    const payments = (text: string, status: string) =>
      sample(text, 'svc_payments_total', { status, processor: 'acme', mode: 'test' }) ?? 0;
    const before = (await scrape()).text;
    const id = await createRequest(gw, m);
    const paid = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: h2hCard(CARDS.visa) });
    expect(paid.body.status, paid.text).toBe('succeeded');
    const declinedId = await createRequest(gw, m);
    await gw.call('POST', `/payments/h2h/${declinedId}`, { apiKey: m.apiKey, body: h2hCard(CARDS.doNotHonor) });
    // Challenged: requires_action in the answer, then succeeded by the ACS's callback, which settles the
    // payment inside the transaction that marks the callback processed (counted once that commits).
    const challengedId = await createRequest(gw, m);
    const challenged = await gw.call('POST', `/payments/h2h/${challengedId}`, {
      apiKey: m.apiKey,
      body: h2hCard(CARDS.challengeApprove),
    });
    expect(challenged.body.status, challenged.text).toBe('requires_action');
    await decideChallenge(gw, challenged.body.redirectUrl, 'approve');
    expect((await gw.call('GET', `/payments/${challenged.body.paymentId}`, { apiKey: m.apiKey })).body.status).toBe(
      'succeeded',
    );
    await gw.call('GET', '/ping', { apiKey: m.apiKey });

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = res.text;
    const count = (route: string, status: string) =>
      sample(text, 'svc_http_request_duration_seconds_count', { method: 'POST', route, status });
    expect(count('/payments/h2h/:id', '200')).toBeGreaterThanOrEqual(1);
    expect(count('/payments/h2h/:id', '402')).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'svc_processor_request_duration_seconds_count', { processor: 'acme', status: '200' }) ??
        sample(text, 'svc_processor_request_duration_seconds_count', { processor: 'acme' }),
    ).toBeGreaterThanOrEqual(2);
    // Exactly the moves these payments made, each once.
    const made = (status: string) => payments(text, status) - payments(before, status);
    expect(['succeeded', 'failed', 'requires_action', 'authorized', 'canceled'].map(made)).toEqual([2, 1, 1, 0, 0]);
    expect(sample(text, 'svc_queue_lag_seconds', { queue: 'jobs' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'svc_key_cache_lookups_total', { result: 'hit' })).toBeGreaterThanOrEqual(0);
    expect(text).toContain('process_resident_memory_bytes');
    // Never a key, a card number or a token in the labels.
    expect(text).not.toContain(m.apiKey);
    expect(text).not.toContain(CARDS.visa);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  let production: TestGateway;
  beforeAll(async () => {
    const secret = 'x'.repeat(40);
    production = await startTestGateway({
      env: {
        NODE_ENV: 'production',
        JWT_SECRET: secret,
        CALLBACK_SIGNING_SECRET: `${secret}y`,
        CARD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
        CARD_FINGERPRINT_SECRET: `${secret}z`,
        IDEMPOTENCY_FINGERPRINT_SECRET: `${secret}i`,
        TRUSTED_PROXIES: '127.0.0.1',
      },
    });
  });
  afterAll(async () => production?.close());

  it('is not served in production: the answer of any unknown path', async () => {
    const viaProxy = { headers: { 'x-forwarded-proto': 'https' } };
    const metrics = await production.call('GET', '/metrics', viaProxy);
    const unknown = await production.call('GET', '/no-such-path', viaProxy);
    expect([metrics.status, metrics.body?.error]).toEqual([404, unknown.body?.error]);
    expect(unknown.status).toBe(404);
    expect(metrics.text).not.toContain('svc_');
  });
});
