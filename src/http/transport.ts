import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

/** Load balancers probe health over plain HTTP inside the private network. */
const PLAIN_HTTP_ALLOWED = new Set(['/healthz', '/readyz']);

/**
 * In production a request must have arrived over TLS: directly, or through a trusted proxy
 * that says X-Forwarded-Proto: https (Fastify believes that header only from TRUSTED_PROXIES).
 */
export function requireHttps(config: Config) {
  return async (request: FastifyRequest): Promise<void> => {
    if (config.env !== 'production' || request.protocol === 'https') return;
    if (PLAIN_HTTP_ALLOWED.has(request.url.split('?')[0])) return;
    throw new AppError('HTTPS_REQUIRED', `Requests must use HTTPS; send this request to ${config.publicUrl}`);
  };
}

/** Headers every response carries. Pages that must be framed or styled override CSP themselves. */
export async function securityHeaders(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('X-Request-Id', request.id);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
  if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
  if (!reply.hasHeader('Content-Security-Policy')) {
    reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    reply.header('X-Frame-Options', 'DENY');
  }
  if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
}
