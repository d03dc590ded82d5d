import autocannon, { type RequestSpec } from 'autocannon';
import { percentile } from './percentile.js';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** Per-request path, called once per request sent. */
  nextPath?: () => string;
  /** At most this many requests (the size of a pre-created supply): autocannon then stops by itself. */
  amount?: number;
  /** A 2xx response that is still not what was wanted (e.g. a payment that did not succeed). */
  isFailure?: (body: string) => boolean;
}

export interface LoadResult {
  /** Successful responses per second over the measured time. */
  perSecond: number;
  p50: number;
  p99: number;
  /** Mean latency (ms, from the rate: autocannon's own latencies are whole milliseconds). */
  mean: number;
  /**
   * One connection only: the median time from one answer to the next (ms, to the microsecond), which on
   * a closed loop of one is a request's whole time; autocannon's own p50 is in whole milliseconds.
   */
  median?: number;
  ok: number;
  /** Non-2xx answers, transport errors, time-outs and unwanted 2xx answers. */
  errors: number;
  seconds: number;
  /** True when the run ended because the supply of ids ran out before the duration. */
  exhausted: boolean;
  /** CPU milliseconds each process spent per answered request (set by the caller that metered it). */
  cpuMsPerRequest?: Record<string, number>;
}

/** One autocannon run; the duration is enforced by a timer so `amount` can cap the supply too. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  let unwanted = 0;
  const request: RequestSpec = {
    method: options.method,
    headers: options.headers,
    body: options.body,
  };
  // autocannon calls these when the keys exist, even when undefined.
  if (options.nextPath) request.setupRequest = (req) => ({ ...req, path: options.nextPath!() });
  // When the supply runs out, autocannon reports its end only at its next one-second tick: the rate is
  // taken up to the last answer instead, or a run that ran out after 6.1 s would count 7.
  let lastAnswer = 0n;
  const gaps: number[] = [];
  request.onResponse = (status, body) => {
    const now = process.hrtime.bigint();
    if (options.connections === 1 && lastAnswer > 0n) gaps.push(Number(now - lastAnswer) / 1e6);
    lastAnswer = now;
    if (options.isFailure && status < 300 && options.isFailure(body)) unwanted++;
  };
  return new Promise((resolve, reject) => {
    const begin = process.hrtime.bigint();
    let timer: NodeJS.Timeout | undefined;
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        // autocannon ignores `duration` when `amount` is set; the timer below ends the run instead.
        ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
        timeout: 10,
        requests: [request],
      },
      (error, result) => {
        clearTimeout(timer);
        if (error) return reject(error);
        const ranOut = options.amount !== undefined && result['2xx'] + result.non2xx + result.errors >= options.amount;
        const seconds = Number((ranOut && lastAnswer > begin ? lastAnswer : process.hrtime.bigint()) - begin) / 1e9;
        const ok = result['2xx'] - unwanted;
        gaps.sort((a, b) => a - b);
        resolve({
          perSecond: ok / seconds,
          p50: result.latency.p50,
          p99: result.latency.p99,
          // Little's law for a closed loop (each connection sends again when answered): exact to the
          // microsecond, where autocannon's own mean comes from whole-millisecond latencies.
          mean: (options.connections * seconds * 1000) / Math.max(1, result['2xx'] + result.non2xx + result.errors),
          ...(gaps.length > 0 ? { median: percentile(gaps, 0.5) } : {}),
          ok,
          errors: result.non2xx + result.errors + result.timeouts + unwanted,
          seconds,
          exhausted: ranOut && seconds < options.durationSeconds - 0.5,
        });
      },
    );
    if (options.amount) timer = setTimeout(() => instance.stop(), options.durationSeconds * 1000);
  });
}
