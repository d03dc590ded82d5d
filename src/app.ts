import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.js';
import { authenticate, type CheckoutTokenVerifier } from './http/credentials.js';
import { sendError, toAppError } from './http/errors.js';
import { registerJsonParsers } from './http/json-body.js';
import { routeNotFound } from './http/not-found.js';
import { openApiRoutes, RouteCatalog } from './http/openapi.js';
import { requireHttps, securityHeaders } from './http/transport.js';
import { ignoreUnknownBodyFields, validatorCompiler } from './http/validation.js';
import { checkApiVersion, rewriteVersionPrefix, V1_GONE_PATH, v1Gone } from './http/versioning.js';
import { JobRunner } from './jobs/queue.js';
import { randomBase62 } from './lib/crypto.js';
import type { Clock } from './lib/clock.js';
import { createAccessTokens, type AccessTokens } from './modules/auth/jwt.js';
import { authRoutes } from './modules/auth/routes.js';
import { systemRoutes } from './modules/system/routes.js';
import type { Db, Storage } from './storage/db.js';
import type { Secrets } from './storage/secrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The wiring built at start; the server and tests reach jobs and storage through it. */
    ctx: AppContext;
  }
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Everything a module needs, built once at start and passed down (no container). */
export interface AppContext {
  config: Config;
  storage: Storage;
  db: Db;
  clock: Clock;
  secrets: Secrets;
  tokens: AccessTokens;
  logger: FastifyBaseLogger;
  jobs: JobRunner;
  checkoutVerifier?: CheckoutTokenVerifier;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface BuildAppOptions {
  config: Config;
  storage: Storage;
  clock: Clock;
  secrets: Secrets;
  logger: FastifyBaseLogger;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config, storage, clock, secrets, logger } = options;
  const app: App = Fastify({
    loggerInstance: logger,
    // One line per request, written by our onResponse hook with the merchant id in it.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    genReqId: () => `req_${randomBase62(20)}`,
    rewriteUrl: (req) => rewriteVersionPrefix(req.url ?? '/'),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A URL the router cannot even decode (bad percent-encoding, an over-long path segment) still gets
    // our headers, error shape and log line: Fastify runs no hooks for these.
    frameworkErrors: (error, request, reply) => {
      void securityHeaders(request, reply);
      reply.raw.once('finish', () => logRequest(request, reply));
      sendError(request, reply, toAppError(error, request));
    },
    ...(config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  const ctx: AppContext = {
    config,
    storage,
    db: storage.db,
    clock,
    secrets,
    tokens: createAccessTokens(secrets.jwtSecret, clock),
    logger,
    jobs: new JobRunner(storage.db, clock, logger),
  };
  app.decorate('ctx', ctx);

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParsers(app);
  const catalog = new RouteCatalog();
  app.addHook('onRoute', (route) => catalog.add(route));

  // Order matters: transport and version checks before credentials, credentials before any body work.
  app.addHook('onRequest', securityHeaders);
  app.addHook('onRequest', requireHttps(config));
  app.addHook('onRequest', checkApiVersion);
  // ctx is read per request, so a module registered below can plug in the checkout verifier.
  app.addHook('onRequest', authenticate(ctx));
  app.addHook('preValidation', ignoreUnknownBodyFields);
  app.addHook('onResponse', async (request, reply) => logRequest(request, reply));

  app.setErrorHandler((error, request, reply) => sendError(request, reply, toAppError(error, request)));
  app.setNotFoundHandler({ preHandler: [securityHeaders] }, (request, reply) =>
    sendError(request, reply, routeNotFound(catalog, request)),
  );

  app.all(V1_GONE_PATH, { schema: { hide: true }, config: { auth: 'none' } }, async (request) => v1Gone(request));
  systemRoutes(app, ctx);
  authRoutes(app, ctx);
  openApiRoutes(app, catalog, config);

  await app.ready();
  return app;
}

/** The one log line per request. */
function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: request.originalUrl.split('?')[0],
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      merchantId: request.actor?.merchantId ?? null,
    },
    'request',
  );
}
