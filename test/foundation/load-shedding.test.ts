import { once } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { logLines, requestLogLines, startTestGateway, type CallResult, type TestGateway } from '../helpers/gateway.js';

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

/**
 * The status of `path` once it is no longer 503, or 503 after 5 s. The guard samples the loop every 200 ms,
 * so an answer refused for a lag (this test's, or a busy machine starving the process) is followed by
 * served ones as soon as a quiet sample comes.
 */
async function statusOnceServed(path: string, apiKey?: string): Promise<number> {
  let status = 503;
  for (let i = 0; i < 50 && status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await gw.call('GET', path, apiKey ? { apiKey } : {})).status;
  }
  return status;
}

it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the event loop lags, probes included, then serves again', async () => {
  const m = await gw.merchant();
  await new Promise((resolve) => setTimeout(resolve, 600)); // shedding starts two samples after listening
  // Served before the lag: a CI machine busy with other test files can itself lag this process now and then.
  expect(await statusOnceServed('/ping', m.apiKey)).toBe(200);

  const refused = await answerWhileLagging('/ping', m.apiKey);
  expectErrorGuide(refused, 'SERVICE_UNAVAILABLE');
  expect(refused.headers.get('retry-after')).toBe('5');
  expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
  for (const probe of ['/healthz', '/readyz']) {
    expect((await answerWhileLagging(probe)).status, probe).toBe(503);
  }

  expect(await statusOnceServed('/healthz')).toBe(200);
});

/** One request on `agent`; a body is written when it resolves, so a test can hold the request in flight. */
function request(url: string, agent: http.Agent, path: string, options: { apiKey: string; body?: Promise<string> }) {
  return new Promise<CallResult & { reusedSocket: boolean }>((resolve, reject) => {
    const req = http.request(`${url}${path}`, { agent, method: options.body ? 'POST' : 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const headers = new Headers(res.headers as Record<string, string>);
        resolve({ status: res.statusCode!, headers, body: JSON.parse(text), text, reusedSocket: req.reusedSocket });
      });
    });
    req.on('error', reject).setHeader('x-api-key', options.apiKey);
    if (!options.body) return void req.end();
    req.setHeader('content-type', 'application/json');
    req.flushHeaders();
    void options.body.then((body) => req.end(body));
  });
}

it('a stopping gateway finishes the request under way, then answers 503 SERVICE_UNAVAILABLE on that kept-alive connection', async () => {
  const own = await startTestGateway();
  const m = await own.merchant();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let closing: Promise<void> | undefined;
  try {
    let sendBody!: (body: string) => void;
    const arrived = once(own.gateway.app.server, 'request');
    const underWay = request(own.url, agent, '/payment-requests', {
      apiKey: m.apiKey,
      body: new Promise((resolve) => (sendBody = resolve)),
    });
    await arrived;
    await new Promise((resolve) => setImmediate(resolve)); // its hooks are past the door; it waits for its body
    closing = own.close();
    sendBody(JSON.stringify({ amount: 10.5, currency: 'EUR', reference: 'under-way' }));
    const first = await underWay;
    expect(first.status, first.text).toBe(200);
    expect(first.body.paymentRequestId).toEqual(expect.any(Number));

    const next = await request(own.url, agent, '/ping', { apiKey: m.apiKey });
    expect(next.reusedSocket).toBe(true);
    expectErrorGuide(next, 'SERVICE_UNAVAILABLE');
    expect(next.headers.get('retry-after')).toBe('1');
    expect(next.headers.get('connection')).toBe('close');
    expect(next.headers.get('x-content-type-options')).toBe('nosniff');
    // Logged like any answer, under the request id it carries (written once the answer has gone out).
    const requestId = next.headers.get('x-request-id');
    expect(requestId).toEqual(expect.any(String));
    await vi.waitFor(() =>
      expect(requestLogLines(own, requestId)).toEqual([expect.objectContaining({ status: 503, url: '/ping' })]),
    );
  } finally {
    agent.destroy();
    await (closing ?? own.close());
  }
});

it('a stopping gateway closes an idle kept-alive connection at once rather than waiting for it', async () => {
  const own = await startTestGateway();
  const m = await own.merchant();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    expect((await request(own.url, agent, '/ping', { apiKey: m.apiKey })).status).toBe(200);
    const [idle] = Object.values(agent.freeSockets).flat();
    expect(idle).toBeDefined();
    const closed = once(idle!, 'close');
    await own.close();
    await closed;
    expect(idle!.destroyed).toBe(true);
  } finally {
    agent.destroy();
  }
});

it('answers 503 SERVICE_UNAVAILABLE when the heap is over its limit, and logs which limit refused it', async () => {
  // A limit of one byte: any heap is over it once the first sample is taken; the loop-delay limit is off.
  const own = await startTestGateway({
    http: { loadLimits: { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1, sampleIntervalMs: 100 } },
  });
  try {
    const refused = await vi.waitFor(
      async () => {
        const res = await own.call('GET', '/healthz');
        expect(res.status).toBe(503);
        return res;
      },
      { timeout: 5000, interval: 50 },
    );
    expectErrorGuide(refused, 'SERVICE_UNAVAILABLE');
    expect(refused.body.message).toContain('heapUsedBytes');
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(logLines(own)).toContainEqual(
      expect.objectContaining({
        msg: 'load shedding: request refused',
        pressure: 'heapUsedBytes',
        reqId: refused.headers.get('x-request-id'),
      }),
    );
  } finally {
    await own.close();
  }
});
