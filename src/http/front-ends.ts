import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { App } from './fastify-app.js';
import { declarePublic } from './route-policy.js';

/** Built asset names carry a content hash (`app.3f2a9c1b.js`): they never change, so they are cached for a year. */
const HASHED_ASSET = /[.-][0-9a-zA-Z_-]{8,}\.(js|mjs|css|woff2?|svg|png|jpg|webp|avif|ico|map)$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** HTML names the current hashes, so it is revalidated on every load. */
const REVALIDATE = 'no-cache';

export interface FrontEndOptions {
  /** The build directory: `checkout/` and `panel/` inside it, each with its index.html. */
  dir: string;
  /** Path the checkout is served under: CHECKOUT_URL's path when it is on the gateway's own origin. */
  checkoutPath?: string;
  /**
   * Who may frame the checkout page (CSP frame-ancestors): the gateway's own origin, the operator's
   * list and the checkoutOrigins of the requested payment request's merchant (decisions.md, Hosted checkout).
   */
  checkoutFrameAncestors: (request: FastifyRequest) => string[] | Promise<string[]>;
  /** The deprecated `?apiKey=` of the checkout page, exchanged for a checkout session token. */
  legacyApiKey?: LegacyApiKey;
}

/** Composed in app.ts from the checkout-sessions module (the exchange) and the notifications module (the dates). */
export interface LegacyApiKey {
  exchange: (apiKey: string, paymentRequestId: number) => Promise<{ token: string }>;
  /** The Deprecation and Sunset headers of the redirect. */
  deprecationHeaders: Record<string, string>;
}

/**
 * Serves the built front ends (@fastify/static), compressed (@fastify/compress), with their own
 * caching and, for the checkout page, its own CSP. A front end whose build is missing is not served.
 */
export async function frontEnds(app: App, options: FrontEndOptions): Promise<void> {
  const { checkoutPath } = options;
  // @fastify/static wants absolute roots; the default build directory is relative to the working directory.
  const dir = resolve(options.dir);
  if (checkoutPath)
    await serve(
      app,
      join(dir, 'checkout'),
      checkoutPath,
      async (request, reply) => checkoutPageHeaders(reply, await options.checkoutFrameAncestors(request)),
      // The spec's page address is `{CHECKOUT_URL}/main?requestId=…&token=…`: the build's index.html.
      { alias: 'main', legacy: options.legacyApiKey },
    );
  await serve(app, join(dir, 'panel'), '/panel', (_request, reply) => {
    reply.header('Content-Security-Policy', `${OWN_ASSETS_ONLY}; frame-ancestors 'none'`);
  });
}

async function serve(
  app: App,
  root: string,
  path: string,
  pageHeaders?: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>,
  page?: { alias: string; legacy?: LegacyApiKey },
): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) return;
  const prefix = `${path.replace(/\/+$/, '')}/`;
  await app.register(async (scope) => {
    // The files are public: @fastify/static cannot declare it for the routes it adds.
    scope.addHook('onRoute', declarePublic);
    await scope.register(fastifyCompress, { globalDecompression: false });
    scope.addHook('onRequest', async (request, reply) => {
      await pageHeaders?.(request, reply);
      reply.header('Cache-Control', HASHED_ASSET.test(request.url.split('?')[0]) ? IMMUTABLE : REVALIDATE);
    });
    await scope.register(fastifyStatic, {
      root,
      prefix,
      cacheControl: false,
      decorateReply: false,
      redirect: true,
      setHeaders: typeScriptAsText,
    });
    // What a person types: `/panel` is the front end's address too (relative asset paths need the slash).
    scope.get(prefix.slice(0, -1), { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(`${prefix}${query === -1 ? '' : request.url.slice(query)}`, 301);
    });
    if (page)
      scope.get(
        `${prefix}${page.alias}`,
        { schema: { hide: true }, config: { auth: 'none' } },
        async (request, reply) => {
          const query = request.query as Record<string, string | undefined>;
          if (page.legacy && query.apiKey !== undefined)
            return legacyApiKeyRedirect(reply, page.alias, query.apiKey, query.requestId, page.legacy);
          return reply.type('text/html; charset=utf-8').send(await readFile(join(root, 'index.html')));
        },
      );
  });
}

/**
 * To the MIME tables `.ts` is an MPEG transport stream (video/mp2t); ours is TypeScript, the checkout's
 * embed.d.ts, which a developer opens in the browser to read or copy: plain text.
 */
function typeScriptAsText(reply: FastifyReply, path: string): void {
  if (path.endsWith('.ts')) reply.header('Content-Type', 'text/plain; charset=utf-8');
}

/** A page of ours: its own scripts, styles and API only (the API's answers keep `default-src 'none'`). */
const OWN_ASSETS_ONLY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; object-src 'none'";

/** The checkout page runs in merchants' pages: its own scripts only, framed only where allowed. */
function checkoutPageHeaders(reply: FastifyReply, frameAncestors: string[]): void {
  reply.header(
    'Content-Security-Policy',
    `${OWN_ASSETS_ONLY}; frame-ancestors ${frameAncestors.join(' ') || "'none'"}`,
  );
  // X-Frame-Options cannot name origins; frame-ancestors supersedes it.
  reply.removeHeader('X-Frame-Options');
  // Merchants' pages load embed.js and frame the page from their own origins.
  reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
}

/**
 * The key leaves the address bar at once: a 303 to the page with a token in the fragment (never sent
 * to a server) and `legacy` so that the page warns in the console on every load. A key that does not
 * exchange (unknown, revoked, request not open) lands on the page without a token: "expired".
 */
async function legacyApiKeyRedirect(
  reply: FastifyReply,
  alias: string,
  apiKey: string,
  requestId: string | undefined,
  legacy: LegacyApiKey,
): Promise<FastifyReply> {
  const id = Number(requestId);
  const token =
    Number.isSafeInteger(id) && id > 0
      ? await legacy.exchange(apiKey, id).then(
          (session) => session.token,
          () => null,
        )
      : null;
  const fragment = new URLSearchParams({ ...(token ? { token } : {}), legacy: 'apiKey' });
  return (
    reply
      // RFC 9745 / RFC 8594, the dates the api.version.deprecated event and e-mail name too.
      .headers(legacy.deprecationHeaders)
      .header('Cache-Control', 'no-store')
      .redirect(`${alias}?requestId=${encodeURIComponent(requestId ?? '')}#${fragment.toString()}`, 303)
  );
}
