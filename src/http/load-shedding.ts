import underPressure from '@fastify/under-pressure';
import type { App } from './fastify-app.js';
import { AppError } from '../errors.js';
import { syncHook } from './sync-hook.js';

export interface LoadLimits {
  /** Event-loop delay (ms) above which new requests are refused. */
  maxEventLoopDelayMs: number;
  /** Heap in use (bytes) above which new requests are refused. */
  maxHeapUsedBytes: number;
  /** How often the process is measured (ms). */
  sampleIntervalMs: number;
}

/** Generous: a healthy gateway never meets them; a wedged or leaking one does, within a second. */
export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxEventLoopDelayMs: 1000,
  maxHeapUsedBytes: 1536 * 1024 * 1024,
  sampleIntervalMs: 1000,
};
const RETRY_AFTER_SECONDS = 5;

/**
 * Load shedding: when the event loop lags or the heap runs high, new requests answer 503
 * SERVICE_UNAVAILABLE with Retry-After at once, instead of every caller waiting into a time-out. Probes
 * are refused the same way, so the load balancer sees the pressure too. A stopping gateway refuses the
 * same way what still arrives on connections left open (Fastify's own 503 would have neither our error
 * shape nor Retry-After; it is off in app.ts).
 *
 * @fastify/under-pressure samples the process (loop delay, heap) every `sampleIntervalMs`; it is given no
 * thresholds, so it adds no request hook of its own: its hook read the route's options per request (a
 * 13-field object Fastify builds on each read) to find a per-route handler we never set. Our one
 * synchronous hook compares its last sample with the limits. Register first among the request hooks: a
 * refused request must cost nothing.
 */
export async function loadShedding(app: App, limits: LoadLimits = DEFAULT_LOAD_LIMITS): Promise<void> {
  // preClose runs once app.close() began, before the listener closes; Fastify adds Connection: close.
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  // The start's own work (schemas, migrations) lags the loop before anyone can call; the samples
  // that saw it are not load. Shedding starts two samples after the gateway listens.
  let armed = false;
  app.addHook('onListen', async () => {
    setTimeout(() => (armed = true), 2 * limits.sampleIntervalMs).unref();
  });
  await app.register(underPressure, { sampleInterval: limits.sampleIntervalMs });
  const pressure = (): { type: string; value: number } | undefined => {
    if (!armed) return undefined;
    const sample = app.memoryUsage();
    // A limit of 0 is no limit (tests switch one off so).
    if (limits.maxEventLoopDelayMs > 0 && sample.eventLoopDelay > limits.maxEventLoopDelayMs)
      return { type: underPressure.TYPE_EVENT_LOOP_DELAY, value: sample.eventLoopDelay };
    if (limits.maxHeapUsedBytes > 0 && sample.heapUsed > limits.maxHeapUsedBytes)
      return { type: underPressure.TYPE_HEAP_USED_BYTES, value: sample.heapUsed };
    return undefined;
  };
  app.addHook(
    'onRequest',
    syncHook((request) => {
      if (stopping)
        throw new AppError('SERVICE_UNAVAILABLE', 'The gateway is shutting down; retry on a new connection', {
          retryAfterSeconds: 1,
        });
      const refused = pressure();
      if (!refused) return;
      request.log.warn({ pressure: refused.type, value: refused.value }, 'load shedding: request refused');
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The gateway is overloaded (${refused.type}); retry after ${RETRY_AFTER_SECONDS} seconds`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    }),
  );
}
