import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { MerchantScope } from '../lib/scope.js';
import { sendHookWhen, syncHook } from './sync-hook.js';

export const CURRENT_API_VERSION = '2.1';
const SUPPORTED_MINORS = { min: 0, max: 1 };

/**
 * Every route is also served under /v2 (decisions.md, Names and paths); /v1 is gone.
 * Used as Fastify's rewriteUrl, so routing sees the bare path and request.originalUrl keeps what was sent.
 */
export function rewriteVersionPrefix(url: string): string {
  if (url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?')) return url.slice(3) || '/';
  if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')) return V1_GONE_PATH;
  return url;
}

export const V1_GONE_PATH = '/__v1-removed';

export function v1Gone(request: FastifyRequest): never {
  const rest = request.originalUrl.replace(/^\/v1/, '').split('?')[0] || '/';
  throw new AppError(
    'API_VERSION_GONE',
    `API version 1 has been removed; use /v2${rest} (or the path without a prefix)`,
    {
      details: { replacement: `/v2${rest}` },
    },
  );
}

/** A deprecated feature as the notifications module describes it (composed in app.ts). */
export interface Deprecation {
  /** The Deprecation (RFC 9745) and Sunset (RFC 8594) headers of an answer that used it. */
  headers: Record<string, string>;
  /** Tells the merchant of one use (at most once a day per merchant and mode); committed when it resolves. */
  report(scope: MerchantScope): Promise<void>;
}

/**
 * X-API-Version: absent means the current version; any 2.0–2.1 is served; anything else is a 400.
 * `deprecated` is X-API-Version 2.0.
 */
export const checkApiVersion = (deprecated: Deprecation) =>
  syncHook((request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-API-Version', CURRENT_API_VERSION);
    const requested = request.headers['x-api-version'];
    if (requested === undefined || isProbe(request.routeOptions.url)) return;
    const value = Array.isArray(requested) ? requested.join(',') : requested.trim();
    const match = /^(\d{1,3})\.(\d{1,3})$/.exec(value);
    if (!match) {
      throw new AppError(
        'UNSUPPORTED_API_VERSION',
        `X-API-Version must look like major.minor (e.g. ${CURRENT_API_VERSION})`,
        {
          details: { requested: value.slice(0, 32), supported: `2.0-${CURRENT_API_VERSION}` },
        },
      );
    }
    const [major, minor] = [Number(match[1]), Number(match[2])];
    if (major !== 2 || minor < SUPPORTED_MINORS.min || minor > SUPPORTED_MINORS.max) {
      const why = major < 2 ? 'version 1.x is no longer served' : 'this version does not exist yet';
      throw new AppError(
        'UNSUPPORTED_API_VERSION',
        `API version ${value} is not supported: ${why}; use 2.0-${CURRENT_API_VERSION}`,
        {
          details: { requested: value, supported: `2.0-${CURRENT_API_VERSION}` },
        },
      );
    }
    if (minor < SUPPORTED_MINORS.max) {
      reply.headers(deprecated.headers);
      request.deprecatedVersion = true;
    }
  });

declare module 'fastify' {
  interface FastifyRequest {
    /** X-API-Version asked for a deprecated version (2.0): reported once the caller is known. */
    deprecatedVersion?: boolean;
  }
}

/**
 * onSend: a merchant's request with a deprecated X-API-Version is reported (once a day per merchant and
 * mode) before it is answered, so the report is committed when the caller reads its events (with the
 * key cache, the caller's next request can outrun a report written after the answer).
 */
export function reportDeprecatedVersion(deprecated: Deprecation) {
  return sendHookWhen(
    (request) => request.deprecatedVersion === true,
    async (request) => {
      const actor = request.actor;
      if (!actor || actor.kind === 'user') return;
      const scope = { merchantId: actor.merchantId, livemode: actor.mode === 'live' };
      await deprecated.report(scope);
    },
  );
}

/** Load-balancer probes: served whatever X-API-Version says, so a probe never fails on a header. */
const PROBES = new Set(['/healthz', '/readyz']);
export const isProbe = (routeUrl: string | undefined): boolean => routeUrl !== undefined && PROBES.has(routeUrl);
