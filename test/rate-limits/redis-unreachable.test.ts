import { expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';

// Nothing listens on port 1: Redis is down from the start.
const gw = useGateway({
  env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: 'redis://127.0.0.1:1' },
});

it('serves requests unlimited while Redis is unreachable and warns once, not once per request', async () => {
  const m = await gw.merchant();
  for (let i = 0; i < 6; i++) {
    const res = await gw.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status).toBe(200);
    // No quota is known, so none is advertised.
    expect(res.headers.get('ratelimit')).toBeNull();
  }
  const warnings = gw
    .logs()
    .split('\n')
    .filter((line) => line.includes('"level":40') && line.includes('rate limiting'));
  expect(warnings).toHaveLength(2); // one at start, one when the first request met the outage
  expect(warnings[0]).toContain('not reachable at start');
});
