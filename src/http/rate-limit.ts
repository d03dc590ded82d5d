import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { App } from './fastify-app.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { signInAddress } from '../lib/client-address.js';
import { hmacHex } from '../lib/crypto.js';
import { normalizeEmail } from '../lib/email.js';
import { MemoryStore, RedisStore, windowStore } from './rate-limit-store.js';
import { isProbe } from './versioning.js';

/**
 * Request rate limits (decisions.md, Limits) with @fastify/rate-limit: RATE_LIMIT_MAX requests per
 * RATE_LIMIT_WINDOW_SECONDS
 *  - per API key (key id), per checkout session, per control-panel user;
 *  - per client IP for unauthenticated routes (callbacks, 404s, /openapi.json …) and for calls
 *    whose credentials failed, so guessing keys is limited too;
 *  - per typed e-mail and IP for POST /auth/login, so one attacker cannot lock others out and
 *    cannot spray one account from one address;
 *  - and on the sign-in routes (`config.signIn`: login, panel session, invitation acceptance, password
 *    reset and change, sign-in link), also SIGNIN_RATE_LIMIT_MAX attempts a minute per client IP (an IPv6
 *    client's /64), whatever e-mail or token they name: rotating e-mails buys no more password guesses
 *    (nor argon2 work).
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
 * A sign-in route counts two quotas ("sign-in" per address, then its own): the answer shows the one with
 * the fewest requests left, or the one that refused.
 * The plugin counts (`createRateLimit`: the key, the store, the window, the verdict) and our hook answers:
 * the plugin's own hook speaks an older draft (RateLimit-Limit/-Remaining/-Reset), which rewriting on
 * every answer cost more than the count itself (docs/performance.md, "The ping's headers").
 */
const LOGIN_ROUTE = 'POST /auth/login';
/** The sign-in quota's window: its limit is "a minute", whatever RATE_LIMIT_WINDOW_SECONDS says. */
const SIGN_IN_WINDOW_SECONDS = 60;

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
  await app.register(fastifyRateLimit, {
    // No hooks of the plugin's own: limitedBy below runs its count on the routes.
    global: false,
    max,
    timeWindow: windowSeconds * 1000,
    store: windowStore(counters, clock, logger),
    keyGenerator: partitionOf,
    skipOnError: true,
  });
  const defaultQuota: Quota = { name: 'default', max, windowSeconds, count: app.createRateLimit() };
  // The sign-in needs the e-mail from the body, so it is counted after parsing.
  const loginQuota: Quota = { ...defaultQuota, count: app.createRateLimit({ keyGenerator: loginKey }) };
  const signInQuota: Quota = {
    name: 'sign-in',
    max: config.rateLimit.signInMax,
    windowSeconds: SIGN_IN_WINDOW_SECONDS,
    count: app.createRateLimit({
      keyGenerator: (request) => `sign-in:${signInAddress(request.ip)}`,
      max: config.rateLimit.signInMax,
      timeWindow: SIGN_IN_WINDOW_SECONDS * 1000,
    }),
  };
  const limited = limitedBy(defaultQuota);
  // Each route counts once, after the credential check (app hooks run before route hooks); probes are exempt.
  // A sign-in route counts both its quotas in one hook, so that its answer says which one applies.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (isProbe(route.url)) return;
    const login = `${String(route.method)} ${route.url}` === LOGIN_ROUTE;
    const signIn = route.config?.signIn === true;
    const own = login ? loginQuota : defaultQuota;
    const check = signIn ? limitedBy(signInQuota, own) : login ? limitedBy(own) : limited;
    const hook = login ? 'preValidation' : 'onRequest';
    const before = route[hook] ?? [];
    route[hook] = [...(Array.isArray(before) ? before : [before]), check];
  });
  return limited;
}

interface Quota {
  name: string;
  max: number;
  windowSeconds: number;
  count: RateLimitCount;
}

/**
 * Counts the request against each quota in turn: the first one used up answers 429 (the later ones are
 * not spent); otherwise the answer's headers describe the quota with the fewest requests left.
 */
function limitedBy(...quotas: Quota[]) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let shown: { quota: Quota; remaining: number; ttl: number } | undefined;
    for (const quota of quotas) {
      const verdict = await quota.count(request);
      if (verdict.isAllowed) continue;
      // A window of 0 only comes from a counter store that failed: the request is served unlimited, without headers.
      if (verdict.ttlInSeconds === 0) continue;
      if (verdict.isExceeded) {
        rateLimitHeaders(reply, quota, 0, verdict.ttlInSeconds);
        const retryAfter = verdict.ttlInSeconds;
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `Rate limit of ${quota.max} requests per ${quota.windowSeconds} seconds exceeded; retry after ${retryAfter} seconds`,
          {
            details: { limit: quota.max, window: quota.windowSeconds, retryAfter },
            retryAfterSeconds: retryAfter,
          },
        );
      }
      if (!shown || verdict.remaining < shown.remaining) {
        shown = { quota, remaining: verdict.remaining, ttl: verdict.ttlInSeconds };
      }
    }
    if (shown) rateLimitHeaders(reply, shown.quota, shown.remaining, shown.ttl);
  };
}

function rateLimitHeaders(reply: FastifyReply, quota: Quota, remaining: number, ttl: number): void {
  reply.header('RateLimit-Policy', `"${quota.name}";q=${quota.max};w=${quota.windowSeconds}`);
  reply.header('RateLimit', `"${quota.name}";r=${remaining};t=${ttl}`);
}

type RateLimitCount = ReturnType<App['createRateLimit']>;

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
