import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { App } from '../context.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { hmacHex } from '../lib/crypto.js';
import { normalizeEmail } from '../modules/merchants/create-merchant.js';
import { MemoryStore, RedisStore, windowStore } from './rate-limit-store.js';
import { syncSendHook } from './sync-hook.js';
import { isProbe } from './versioning.js';

/**
 * Request rate limits (decisions.md, Limits) with @fastify/rate-limit: RATE_LIMIT_MAX requests per
 * RATE_LIMIT_WINDOW_SECONDS
 *  - per API key (key id), per checkout session, per control-panel user;
 *  - per client IP for unauthenticated routes (callbacks, 404s, /openapi.json …) and for calls
 *    whose credentials failed, so guessing keys is limited too;
 *  - per typed e-mail and IP for POST /auth/login, so one attacker cannot lock others out and
 *    cannot spray one account from one address.
 * Load-balancer probes are exempt.
 *
 * Windows are fixed and aligned to the epoch (rate-limit-store.ts). Counters live in memory per
 * instance, or in Redis shared by all instances when REDIS_URL is set; if Redis fails, requests are
 * served unlimited and without RateLimit headers (fail open).
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-10/11 (structured fields):
 *   RateLimit-Policy: "default";q=6000;w=60     quota q per window w seconds
 *   RateLimit: "default";r=5999;t=42             r left, t seconds until the window resets
 * plus Retry-After on a 429 (AppError's retryAfterSeconds, as on every answer that says when to retry).
 * The plugin speaks an older draft (RateLimit-Limit/-Remaining/-Reset); an onSend hook rewrites those
 * into the structured pair, which is the one rule kept as our code.
 */
const POLICY_NAME = 'default';
const LOGIN_ROUTE = 'POST /auth/login';

export interface RateLimitDeps {
  config: Pick<Config, 'rateLimit' | 'redisUrl'>;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Keys the login partition (no e-mail in Redis) and namespaces the shared counters. */
  secret: string;
}

/**
 * Registers the limiter on every route added after it (call before the routes, after the
 * credential check). Returns the check of a request whose credentials failed: it spends the
 * client address's quota, and throws the 429 once that is used up.
 */
export async function rateLimits(
  app: App,
  deps: RateLimitDeps,
): Promise<(request: FastifyRequest, reply: FastifyReply) => Promise<void>> {
  const { config, clock, logger, secret } = deps;
  const { max, windowSeconds } = config.rateLimit;
  // Instances of one deployment share the JWT secret; another deployment on the same Redis
  // (staging, another test gateway) gets other keys, so their counters never mix.
  const counters = config.redisUrl
    ? await RedisStore.open(
        config.redisUrl,
        `svc-gateway:rl:${hmacHex('sha256', secret, 'rate-limit').slice(0, 16)}:`,
        logger,
      )
    : new MemoryStore();
  app.addHook('onClose', () => counters.close());

  const loginKey = (request: FastifyRequest): string => {
    // Counted before validation: a missing or odd e-mail still counts, under "".
    const email = (request.body as { email?: unknown } | undefined)?.email;
    const account = hmacHex('sha256', secret, `login:${typeof email === 'string' ? normalizeEmail(email) : ''}`).slice(
      0,
      32,
    );
    return `login:${account}:${request.ip}`;
  };
  // Before the plugin's own onRoute hook: the routes whose limit differs say so in their config.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (isProbe(route.url)) route.config = { ...route.config, rateLimit: false };
    // The sign-in needs the e-mail from the body, so it is counted after parsing.
    if (`${String(route.method)} ${route.url}` === LOGIN_ROUTE)
      route.config = { ...route.config, rateLimit: { hook: 'preValidation', keyGenerator: loginKey } };
  });

  await app.register(fastifyRateLimit, {
    max,
    timeWindow: windowSeconds * 1000,
    store: windowStore(counters, clock, logger),
    keyGenerator: partitionOf,
    skipOnError: true,
    enableDraftSpec: true,
    addHeaders: { 'retry-after': false },
    errorResponseBuilder: (_request, context) => {
      const retryAfter = Math.ceil(context.ttl / 1000);
      return new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${max} requests per ${windowSeconds} seconds exceeded; retry after ${retryAfter} seconds`,
        { details: { limit: max, window: windowSeconds, retryAfter }, retryAfterSeconds: retryAfter },
      );
    },
  });
  app.addHook(
    'onSend',
    syncSendHook((_request, reply) => structuredHeaders(reply, windowSeconds)),
  );

  const limit = app.rateLimit();
  return async (request, reply) => void (await limit.call(app, request, reply));
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
    case 'panel':
      return `panel:${actor.sessionId}`;
    default:
      return `ip:${request.ip}`;
  }
}

const DRAFT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

/** RateLimit-Limit/-Remaining/-Reset → RateLimit-Policy and RateLimit; none when the quota is unknown. */
function structuredHeaders(reply: FastifyReply, windowSeconds: number): void {
  const [limit, remaining, reset] = DRAFT_HEADERS.map((name) => reply.getHeader(name));
  if (limit === undefined) return;
  for (const name of DRAFT_HEADERS) reply.removeHeader(name);
  // A reset of 0 only comes from a counter store that failed: the plugin served the request unlimited.
  if (Number(reset) === 0) return;
  reply.header('RateLimit-Policy', `"${POLICY_NAME}";q=${String(limit)};w=${windowSeconds}`);
  reply.header('RateLimit', `"${POLICY_NAME}";r=${String(remaining)};t=${String(reset)}`);
}
