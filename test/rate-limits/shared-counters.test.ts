import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// Two gateway instances on one Redis, as behind a load balancer. This file needs TEST_REDIS_URL
// (scripts/test.sh starts Redis and exports it) and fails rather than skips without it.
const MAX = 5;
const WINDOW = 60;
const SIGN_IN_MAX = 3;

let a: TestGateway;
let b: TestGateway;
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));

beforeAll(async () => {
  const redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) {
    throw new Error(
      'TEST_REDIS_URL is not set: run TEST_REDIS_URL=$(scripts/redis-server.sh start) npx vitest run, or scripts/test.sh',
    );
  }
  const env = {
    RATE_LIMIT_MAX: String(MAX),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW),
    SIGNIN_RATE_LIMIT_MAX: String(SIGN_IN_MAX),
    REDIS_URL: redisUrl,
    // One deployment: the counters' namespace comes from the secret every instance shares.
    JWT_SECRET: randomBytes(24).toString('hex'),
  };
  a = await startTestGateway({ env, clock });
  // Both instances use one database, as in production.
  b = await startTestGateway({ env: { ...env, DATABASE_URL: a.config.databaseUrl! }, clock });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

function startOfNextWindow(): void {
  clock.advance(WINDOW - ((clock.now().getTime() / 1000) % WINDOW));
}

it('counts calls on both instances against one quota (one API key)', async () => {
  startOfNextWindow();
  const [path, apiKey] = ['/ping', (await a.merchant()).apiKey];
  const calls = [a, a, a, b, b];
  for (const [i, gw] of calls.entries()) {
    const res = await gw.call('GET', path, { apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - i - 1};t=${WINDOW}`);
  }
  const sixth = await b.call('GET', path, { apiKey });
  expect(sixth.status).toBe(429);
  expect(sixth.body).toMatchObject({
    error: 'RATE_LIMIT_EXCEEDED',
    code: 'RATE001',
    details: { limit: MAX, window: WINDOW, retryAfter: WINDOW },
  });
  expect(sixth.headers.get('retry-after')).toBe(String(WINDOW));
  expect((await a.call('GET', path, { apiKey })).status).toBe(429);
});

it('shares the per-address quota of unauthenticated routes, and both instances serve again in the next window', async () => {
  startOfNextWindow();
  for (const gw of [a, b, a, b, a]) expect((await gw.call('GET', '/no-such-route')).status).toBe(404);
  expect((await b.call('GET', '/no-such-route')).status).toBe(429);
  expect((await a.call('GET', '/openapi.json')).status).toBe(429);

  startOfNextWindow();
  const res = await b.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('ratelimit')).toBe(`"default";r=${MAX - 1};t=${WINDOW}`);
  expect((await a.call('GET', '/openapi.json')).headers.get('ratelimit')).toBe(`"default";r=${MAX - 2};t=${WINDOW}`);
});

it('shares the sign-in quota of an address: e-mails rotated across instances buy no more attempts', async () => {
  startOfNextWindow();
  for (const [i, gw] of [a, b, a].entries()) {
    const res = await gw.call('POST', '/auth/session', { body: { email: `guess${i}@example.com`, password: 'guess' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit')).toBe(`"sign-in";r=${SIGN_IN_MAX - i - 1};t=60`);
  }
  for (const gw of [b, a]) {
    const res = await gw.call('POST', '/auth/login', { body: { email: 'guess9@example.com', password: 'guess' } });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED', details: { limit: SIGN_IN_MAX, window: 60 } });
    expect(res.headers.get('retry-after')).toBe('60');
  }
});
