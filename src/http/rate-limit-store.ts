import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis, type Result } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../lib/clock.js';

/**
 * Where rate-limit counters live. Windows are fixed and aligned to the epoch, so a window is
 * just its index: the same instant falls in the same window on every instance.
 */
export interface RateLimitStore {
  /** Counts one request for `partition` in `window` and returns the count so far, this one included. */
  increment(partition: string, window: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Counters of one process (no REDIS_URL). Every partition shares the current window, so a
 * new window makes every count stale at once: the map is dropped whole and never grows past
 * one window's callers.
 */
export class MemoryStore implements RateLimitStore {
  private window = -1;
  private counts = new Map<string, number>();

  async increment(partition: string, window: number): Promise<number> {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(partition) ?? 0) + 1;
    this.counts.set(partition, count);
    return count;
  }

  async close(): Promise<void> {}
}

// INCR and PEXPIRE in one atomic step and one round trip; the expiry only cleans up, since the
// window index in the key is what starts a new count.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** A rate-limit check waits at most this long for Redis before the request is served unlimited. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2000;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimitIncrement(key: string, ttlMs: number): Result<number, Context>;
  }
}

/**
 * Counters shared by every instance through Redis. Built to fail fast rather than queue: no
 * offline queue and no command retries, so while Redis is away each check errors at once and the
 * limiter serves the request (fail open); ioredis keeps reconnecting in the background.
 */
export class RedisStore implements RateLimitStore {
  private constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  /** Connects before the gateway listens; an unreachable Redis is logged, not fatal. */
  static async open(url: string, prefix: string, logger: FastifyBaseLogger): Promise<RedisStore> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Connection errors surface as failed checks, which the limiter reports once per outage.
    client.on('error', () => {});
    client.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
    try {
      await client.connect();
    } catch (error) {
      logger.warn(
        { err: { message: (error as Error).message } },
        'rate limiting: Redis (REDIS_URL) is not reachable at start; requests are served unlimited until it is',
      );
    }
    return new RedisStore(client, prefix);
  }

  async increment(partition: string, window: number, windowMs: number): Promise<number> {
    return this.client.rateLimitIncrement(`${this.prefix}${partition}:${window}`, windowMs);
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      await this.client.quit().catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}

/**
 * The counters as a store of @fastify/rate-limit. Its own stores time windows from each key's
 * first request by the wall clock; ours are aligned to the epoch by the gateway's clock (so every
 * instance agrees on a window and tests can move time), which a store is the plugin's place for.
 * A failing counter store is reported once per outage and counted; the error then reaches the
 * plugin, which serves the request unlimited (skipOnError: fail open).
 */
export function windowStore(
  counters: RateLimitStore,
  clock: Clock,
  logger: FastifyBaseLogger,
): FastifyRateLimitStoreCtor {
  let servedUnlimited = 0;
  const store: FastifyRateLimitStore = {
    incr(key, callback, timeWindow) {
      const now = clock.now().getTime();
      const window = Math.floor(now / timeWindow);
      counters.increment(key, window, timeWindow).then(
        (current) => {
          if (servedUnlimited > 0) {
            logger.info({ servedUnlimited }, 'rate limiting: counter store reachable again');
            servedUnlimited = 0;
          }
          callback(null, { current, ttl: (window + 1) * timeWindow - now });
        },
        (error: Error) => {
          // A payment API that stops when its counter store does is worse than one briefly unlimited.
          if (servedUnlimited++ === 0) {
            logger.warn(
              { err: { message: error.message } },
              'rate limiting: counter store unreachable; serving requests unlimited',
            );
          }
          callback(error, { current: 0, ttl: 0 });
        },
      );
    },
    child: () => store,
  };
  return function WindowStore() {
    return store;
  } as unknown as FastifyRateLimitStoreCtor;
}
