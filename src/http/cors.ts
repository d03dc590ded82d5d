import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { App } from './fastify-app.js';

/** What the checkout front end may send cross-origin. */
const CHECKOUT_CORS_ALLOWED_HEADERS = 'X-Checkout-Token, Content-Type, X-Idempotency-Key, X-API-Version';
const EXPOSED_HEADERS =
  'X-Request-Id, X-API-Version, X-Ignored-Fields, Idempotent-Replayed, Retry-After, X-Merchant-Name, ' +
  'X-Wallet-Enabled, X-Last-Payment-Id, X-Last-Payment-Status';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/cors reads a route's own CORS options from here. */
    cors?: FastifyCorsOptions | false;
  }
}

/**
 * CORS (@fastify/cors) for the hosted checkout, and only for it. CORS is off everywhere; the routes
 * a checkout token may call (their `checkoutToken` policy, route-policy.ts) switch it on for the checkout front end's
 * origin only, so API-key routes never send CORS headers and no other page can read them. Each such
 * path also gets an OPTIONS route, so its preflight answers 204 (with CORS headers only for that
 * origin) while OPTIONS elsewhere stays a 405. Call before any route is registered: it learns the
 * routes through onRoute, and its hook must run before the credential check (errors carry CORS too).
 */
export async function checkoutCors(app: App, checkoutUrl: string): Promise<void> {
  const allowedOrigin = new URL(checkoutUrl).origin;
  const methodsByUrl = new Map<string, string[]>();
  const checkoutOnly = (methods: string[]): FastifyCorsOptions => ({
    // A function origin also sends Vary: Origin, and on any other origin no CORS header at all.
    origin: (origin, callback) => callback(null, origin === allowedOrigin ? allowedOrigin : false),
    methods,
    allowedHeaders: CHECKOUT_CORS_ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    strictPreflight: false,
  });

  app.addHook('onRoute', (route) => {
    const methods = route.config?.checkoutToken
      ? (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD' && m !== 'OPTIONS')
      : [];
    if (methods.length === 0) {
      // The plugin's hook then returns at once; with only the global `origin: false` it would copy its
      // options and resolve the origin on every request to the same end (no CORS headers).
      if (route.config?.cors === undefined) route.config = { ...route.config, cors: false };
      return;
    }
    let allowed = methodsByUrl.get(route.url);
    if (!allowed) {
      allowed = [];
      methodsByUrl.set(route.url, allowed);
      const preflight = checkoutOnly(allowed);
      // The CORS hook answers a preflight from the checkout origin itself; any other gets a bare 204.
      app.options(
        route.url,
        { schema: { hide: true }, config: { auth: 'none', errorShape: route.config?.errorShape, cors: preflight } },
        async (_request, reply) => reply.code(204).send(),
      );
    }
    allowed.push(...methods.filter((m) => !allowed.includes(m)));
    route.config = { ...route.config, cors: checkoutOnly(allowed) };
  });
  await app.register(fastifyCors, { origin: false, hideOptionsRoute: true });
}
