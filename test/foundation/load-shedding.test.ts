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
 * The first answer refused while the event loop lags, or the last one after 5 s. The lag is kept up in
 * 100 ms slices with a turn of the loop between them, as a wedged handler under load would: Node's delay
 * histogram records a stall when its timer next runs, and the guard resets the histogram on its own timer,
 * so a single long block whose record lands after a reset is forgotten (one run in three saw no lag at all).
 */
async function answerWhileLagging(path: string, apiKey?: string) {
  let lagging = true;
  const lag = (async () => {
    while (lagging) {
      blockEventLoop(100);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  try {
    const until = Date.now() + 5000;
    for (;;) {
      const res = await gw.call('GET', path, apiKey ? { apiKey } : {});
      if (res.status === 503 || Date.now() > until) return res;
    }
  } finally {
    lagging = false;
    await lag;
  }
}

it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the event loop lags, probes included, then serves again', async () => {
  const m = await gw.merchant();
  await new Promise((resolve) => setTimeout(resolve, 600)); // shedding starts two samples after listening
  expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);

  const refused = await answerWhileLagging('/ping', m.apiKey);
  expectErrorGuide(refused, 'SERVICE_UNAVAILABLE');
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
  for (const probe of ['/healthz', '/readyz']) {
    expect((await answerWhileLagging(probe)).status, probe).toBe(503);
  }

  let status = 503;
  for (let i = 0; i < 50 && status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await gw.call('GET', '/healthz')).status;
  }
  expect(status).toBe(200);
});
