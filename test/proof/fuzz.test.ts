import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatSummary, runFuzz } from '../../proof/fuzz/run.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { fuzzTarget } from './target.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
});
afterAll(async () => gw?.close());

/** The fixed-seed short run of `npm run fuzz` (docs/security.md): every operation of /openapi.json, ~400 random probes, then every hostile body on every operation that takes one. */
it('every generated request gets a documented answer: valid ones succeed, broken ones a 4xx, none a 5xx', async () => {
  const summary = await runFuzz(fuzzTarget(gw), { seed: 20260301, count: 400, sweep: true });
  const report = formatSummary(summary);
  expect(summary.sent, report).toBeGreaterThan(300);
  expect(summary.byKind.valid, report).toBeGreaterThan(100);
  expect(summary.byKind.violation, report).toBeGreaterThan(100);
  expect(summary.byKind.hostile, report).toBeGreaterThan(50);
  expect([...summary.failures.keys()], report).toEqual([]);
}, 120_000);
