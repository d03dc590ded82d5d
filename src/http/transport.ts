import helmet from 'helmet';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../context.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { syncHook } from './sync-hook.js';
import { isProbe } from './versioning.js';

/**
 * In production a request must have arrived over TLS: directly, or through a trusted proxy
 * that says X-Forwarded-Proto: https (Fastify believes that header only from TRUSTED_PROXIES).
 * Load balancers probe health over plain HTTP inside the private network.
 */
export function requireHttps(config: Config) {
  return syncHook((request) => {
    if (config.env !== 'production' || request.protocol === 'https') return;
    if (isProbe(request.routeOptions.url)) return;
    throw new AppError('HTTPS_REQUIRED', `Requests must use HTTPS; send this request to ${config.publicUrl}`);
  });
}

/** The API's own policy: it serves data, never pages, and is never framed. */
const API_CSP = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] };

/**
 * Security headers with helmet on every answer (errors, 404s and 503s too: it runs in
 * onRequest): nosniff, no-referrer, X-Frame-Options DENY, the API's CSP, the cross-origin policies.
 * A page with its own needs (the checkout page, /docs) replaces the CSP on its own routes.
 * HSTS and the per-request headers stay ours (requestHeaders below): helmet cannot send HSTS only
 * over TLS, and the request id and no-store are not security headers in its sense.
 */
export async function securityHeaders(app: App): Promise<void> {
  // helmet's middleware, built once (@fastify/helmet builds a new one, parsing the CSP, per request).
  app.addHook('onRequest', (request, reply, done) =>
    applyHelmet(request.raw, reply.raw, (error) => {
      if (error) return done(error as Error);
      requestHeaders(request, reply);
      done();
    }),
  );
}

const applyHelmet = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
});

/** For answers Fastify gives without running hooks (a URL it cannot decode): the same headers. */
export function headersWithoutHooks(request: FastifyRequest, reply: FastifyReply): void {
  applyHelmet(request.raw, reply.raw, () => {});
  requestHeaders(request, reply);
}

/** Headers of every answer that are not helmet's; also called where Fastify runs no hooks. */
function requestHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  // API answers carry credentials and payment data; cacheable pages and files set their own.
  reply.header('Cache-Control', 'no-store');
  if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
}
