import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../context.js';
import { checkoutBoundParam } from './route-policy.js';

/** What the checkout front end may send cross-origin. */
export const CHECKOUT_CORS_ALLOWED_HEADERS = 'X-Checkout-Token, Content-Type, X-Idempotency-Key, X-API-Version';
const EXPOSED_HEADERS = 'X-Request-Id, X-API-Version, X-Ignored-Fields, Idempotent-Replayed, Retry-After';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS for the hosted checkout, and only for it. Routes a checkout token may call (route-policy.ts
 * CHECKOUT_TOKEN_ROUTES) answer the checkout front end's origin; every other origin gets no CORS headers.
 * API-key routes are server-to-server and never send CORS headers, so no browser page can read
 * them cross-origin. Each token-scoped route also gets an OPTIONS route for the preflight.
 * Call before any route is registered: it learns the routes through onRoute.
 */
export function checkoutCors(app: App, checkoutUrl: string): void {
  const allowedOrigin = new URL(checkoutUrl).origin;
  const methodsByUrl = new Map<string, Set<string>>();

  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (m) => m !== 'HEAD' && m !== 'OPTIONS' && checkoutBoundParam(m, route.url) !== undefined,
    );
    if (methods.length === 0) return;
    let allowed = methodsByUrl.get(route.url);
    if (!allowed) {
      allowed = new Set();
      methodsByUrl.set(route.url, allowed);
      registerPreflight(app, route.url, allowed, allowedOrigin);
    }
    for (const method of methods) allowed.add(method);
  });

  // onSend also runs for errors (401/403 of the credential check), which the browser must be able to read.
  app.addHook('onSend', async (request, reply, payload) => {
    if (checkoutBoundParam(request.method, request.routeOptions.url) !== undefined) {
      addVaryOrigin(reply);
      if (request.headers.origin === allowedOrigin) {
        reply.header('Access-Control-Allow-Origin', allowedOrigin);
        reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      }
    }
    return payload;
  });
}

function registerPreflight(app: App, url: string, methods: ReadonlySet<string>, allowedOrigin: string): void {
  app.options(url, { schema: { hide: true }, config: { auth: 'none' } }, async (request: FastifyRequest, reply: FastifyReply) => {
    addVaryOrigin(reply);
    if (request.headers.origin === allowedOrigin) {
      reply.header('Access-Control-Allow-Origin', allowedOrigin);
      reply.header('Access-Control-Allow-Methods', [...methods].join(', '));
      reply.header('Access-Control-Allow-Headers', CHECKOUT_CORS_ALLOWED_HEADERS);
      reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return reply.code(204).send();
  });
}

/** Answers differ by Origin, so shared caches must key on it. */
function addVaryOrigin(reply: FastifyReply): void {
  const current = reply.getHeader('Vary');
  const values = current === undefined ? [] : String(current).split(',').map((v) => v.trim());
  if (!values.some((v) => v.toLowerCase() === 'origin')) reply.header('Vary', [...values, 'Origin'].join(', '));
}
