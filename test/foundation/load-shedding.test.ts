import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// The gateway runs in this test's process: blocking this event loop blocks the gateway's.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    http: { loadLimits: { maxEventLoopDelayMs: 50, maxHeapUsedBytes: 0, sampleIntervalMs: 200 } },
  });
});
afterAll(async () => gw?.close());

function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy on purpose: nothing else runs meanwhile
  }
}

/**
 * The first 503 within 600 ms of a lag (three samples of 200 ms). The guard reads the event-loop delay
 * histogram on its own timer: after a long block that timer may run before the histogram has recorded
 * the block, and then the guard sees the lag one sample later, not at once.
 */
async function answerWhileLagging(path: string, apiKey?: string) {
  const until = Date.now() + 600;
  for (;;) {
    const res = await gw.call('GET', path, apiKey ? { apiKey } : {});
    if (res.status === 503 || Date.now() > until) return res;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the event loop lags, probes included, then serves again', async () => {
  const m = await gw.merchant();
  await new Promise((resolve) => setTimeout(resolve, 600)); // shedding starts two samples after listening
  expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);

  blockEventLoop(2000);
  const refused = await answerWhileLagging('/ping', m.apiKey);
  expectErrorGuide(refused, 'SERVICE_UNAVAILABLE');
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
  for (const probe of ['/healthz', '/readyz']) {
    blockEventLoop(2000);
    expect((await answerWhileLagging(probe)).status, probe).toBe(503);
  }

  let status = 503;
  for (let i = 0; i < 50 && status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await gw.call('GET', '/healthz')).status;
  }
  expect(status).toBe(200);
});
