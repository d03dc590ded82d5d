import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { hmacHex } from '../lib/crypto.js';
import { normalizeEmail } from '../modules/merchants/create-merchant.js';
import { MemoryStore, RedisStore, type RateLimitStore } from './rate-limit-store.js';

/**
 * Request rate limits (decisions.md, Limits): RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_SECONDS
 *  - per API key (key id), per checkout session, per control-panel user;
 *  - per client IP for unauthenticated routes (callbacks, 404s, /openapi.json …);
 *  - per typed e-mail and IP for POST /auth/login, so one attacker cannot lock others out and
 *    cannot spray one account from one address.
 * Load-balancer probes are exempt.
 *
 * Algorithm: fixed windows aligned to the epoch, one counter per partition and window. One
 * INCR per request (one round trip), exact Retry-After; the price is that a caller can send up
 * to twice the quota across a window boundary.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-10/11 (structured fields):
 *   RateLimit-Policy: "default";q=6000;w=60     quota q per window w seconds
 *   RateLimit: "default";r=5999;t=42             r left, t seconds until the window resets
 * on every limited response, plus Retry-After on a 429.
 *
 * Store: in-memory per instance, or Redis shared by all instances when REDIS_URL is set. If the
 * store fails, requests are served unlimited and without RateLimit headers (fail open), with
 * one warning per outage. Time comes from the gateway's clock, so tests move it.
 */
export const POLICY_NAME = 'default';
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz']);
const LOGIN_ROUTE = '/auth/login';

export interface RateLimiter {
  /** onRequest, after authentication: counts the caller before the body is read. */
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** preValidation: the login route, which needs the e-mail from the body. */
  onLoginBody(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimiterDeps {
  config: Pick<Config, 'rateLimit' | 'redisUrl'>;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Keys the login partition (no e-mail in Redis) and namespaces the shared counters. */
  secret: string;
}

export async function createRateLimiter(deps: RateLimiterDeps): Promise<RateLimiter> {
  const { config, clock, logger, secret } = deps;
  const { max, windowSeconds } = config.rateLimit;
  const windowMs = windowSeconds * 1000;
  const policy = `"${POLICY_NAME}";q=${max};w=${windowSeconds}`;
  // Instances of one deployment share the JWT secret; another deployment on the same Redis
  // (staging, another test gateway) gets other keys, so their counters never mix.
  const store: RateLimitStore = config.redisUrl
    ? await RedisStore.open(config.redisUrl, `svc-gateway:rl:${hmacHex('sha256', secret, 'rate-limit').slice(0, 16)}:`, logger)
    : new MemoryStore();
  let storeDown = false;

  async function count(partition: string, reply: FastifyReply): Promise<void> {
    const now = clock.now().getTime();
    const window = Math.floor(now / windowMs);
    const resetSeconds = Math.ceil(((window + 1) * windowMs - now) / 1000);
    let used: number;
    try {
      used = await store.increment(partition, window, windowMs);
    } catch (error) {
      // Fail open: a payment API that stops when its counter store does is worse than one
      // briefly unlimited. Reported once per outage, not once per request.
      if (!storeDown) {
        storeDown = true;
        logger.warn({ err: { message: (error as Error).message } }, 'rate limiting: counter store unreachable; serving requests unlimited');
      }
      return;
    }
    if (storeDown) {
      storeDown = false;
      logger.info('rate limiting: counter store reachable again');
    }
    const headers = { 'RateLimit-Policy': policy, RateLimit: `"${POLICY_NAME}";r=${Math.max(0, max - used)};t=${resetSeconds}` };
    if (used > max) {
      throw new AppError('RATE_LIMIT_EXCEEDED', `Rate limit of ${max} requests per ${windowSeconds} seconds exceeded; retry after ${resetSeconds} seconds`, {
        details: { limit: max, window: windowSeconds, retryAfter: resetSeconds },
        headers: { ...headers, 'Retry-After': String(resetSeconds) },
      });
    }
    reply.headers(headers);
  }

  return {
    async onRequest(request, reply) {
      const route = request.routeOptions.url;
      if (route !== undefined && EXEMPT_ROUTES.has(route)) return;
      if (isLogin(request)) return;
      await count(partitionOf(request), reply);
    },
    async onLoginBody(request, reply) {
      if (!isLogin(request)) return;
      // The body is not validated yet: a missing or odd e-mail still counts, under "".
      const email = (request.body as { email?: unknown } | undefined)?.email;
      const account = hmacHex('sha256', secret, `login:${typeof email === 'string' ? normalizeEmail(email) : ''}`).slice(0, 32);
      await count(`login:${account}:${request.ip}`, reply);
    },
    close: () => store.close(),
  };
}

function isLogin(request: FastifyRequest): boolean {
  return request.method === 'POST' && request.routeOptions.url === LOGIN_ROUTE;
}

/** Whose quota a request spends: the authenticated caller's, else its client address's. */
function partitionOf(request: FastifyRequest): string {
  const actor = request.actor;
  switch (actor?.kind) {
    case 'api_key':
      return `key:${actor.keyId}`;
    case 'checkout':
      return `checkout:${actor.sessionId}`;
    case 'user':
      return `user:${actor.userId}`;
    default:
      return `ip:${request.ip}`;
  }
}
