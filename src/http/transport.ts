import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './fastify-app.js';
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
 * HSTS and the per-request headers stay ours (answerHeaders below): helmet cannot send HSTS only
 * over TLS, and the request id and no-store are not security headers in its sense.
 */
export async function securityHeaders(app: App): Promise<void> {
  app.addHook('onRequest', syncHook(answerHeaders));
}

/**
 * helmet's headers for the API's policy, asked of helmet once. They are the same for every answer (the
 * policy has no nonce, nothing depends on the request), so each answer gets them through Fastify's reply
 * with its other headers rather than by running helmet's eleven middlewares on the raw response: Node then
 * checks and writes all of them in one pass (docs/performance.md, "The ping's headers").
 */
const HELMET_HEADERS: Readonly<Record<string, string>> = headersSetBy(
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  }),
);

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

function headersSetBy(middleware: Middleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error) => {
    if (error) throw error as Error;
  });
  return headers;
}

/** Headers of every answer: helmet's, and ours; also called for answers Fastify gives without running hooks (a URL it cannot decode). */
export function answerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(HELMET_HEADERS);
  reply.header('X-Request-Id', request.id);
  // API answers carry credentials and payment data; cacheable pages and files set their own.
  reply.header('Cache-Control', 'no-store');
  if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
}
