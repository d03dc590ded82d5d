import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { reportUndeclaredStatuses } from './http/contract-check.js';
import { checkoutCors } from './http/cors.js';
import { authenticate } from './http/credentials.js';
import { sendError, toAppError } from './http/errors.js';
import type { App } from './http/fastify-app.js';
import { frontEnds } from './http/front-ends.js';
import { idempotencyHooks } from './http/idempotency.js';
import { registerJsonParsers } from './http/json-body.js';
import { loadShedding, type LoadLimits } from './http/load-shedding.js';
import { RouteCatalog, routeNotFound } from './http/not-found.js';
import { openApi } from './http/openapi.js';
import { rateLimits } from './http/rate-limit.js';
import { sandboxPages } from './http/sandbox-pages.js';
import { syncHook } from './http/sync-hook.js';
import { answerHeaders, requireHttps, securityHeaders } from './http/transport.js';
import { ignoreUnknownBodyFields, validatorCompiler } from './http/validation.js';
import {
  checkApiVersion,
  reportDeprecatedVersion,
  rewriteVersionPrefix,
  V1_GONE_PATH,
  v1Gone,
} from './http/versioning.js';
import { JobRunner } from './jobs/queue.js';
import { randomBase62 } from './lib/crypto.js';
import type { Clock } from './lib/clock.js';
import { noKeyCache, verifyApiKey, type KeyCache } from './modules/api-keys/index.js';
import * as audit from './modules/audit/index.js';
import * as auth from './modules/auth/index.js';
import * as callbacks from './modules/callbacks/index.js';
import { createVault, parseVaultKeys } from './modules/cards/index.js';
import * as checkoutSessions from './modules/checkout-sessions/index.js';
import * as customers from './modules/customers/index.js';
import * as idempotency from './modules/idempotency/index.js';
import * as jobs from './modules/jobs/index.js';
import * as metrics from './modules/metrics/index.js';
import * as notifications from './modules/notifications/index.js';
import * as panelSessions from './modules/panel-sessions/index.js';
import * as paymentRequests from './modules/payment-requests/index.js';
import * as payments from './modules/payments/index.js';
import * as processorConnections from './modules/processor-connections/index.js';
import * as reports from './modules/reports/index.js';
import * as system from './modules/system/index.js';
import * as team from './modules/team/index.js';
import { createCircuitBreaker } from './processors/circuit-breaker.js';
import { createConnectorPool } from './processors/connectors.js';
import { createProcessorRegistry } from './processors/registry.js';
import { onEffectFailure } from './storage/after-commit.js';
import type { Storage } from './storage/db.js';
import type { Secrets } from './storage/secrets.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface BuildAppOptions {
  config: Config;
  storage: Storage;
  clock: Clock;
  secrets: Secrets;
  logger: FastifyBaseLogger;
  /** Base URL of the processor network (the built-in sandbox unless SANDBOX_URL says otherwise). */
  sandboxUrl: string;
  /** Where the built front ends are (front-ends.ts); default ./web/dist. */
  frontEndsDir?: string;
  /** Load-shedding thresholds (tests lower them). */
  loadLimits?: LoadLimits;
  /** Tests: told of every answer whose status its route's schema does not declare. */
  onUndeclaredStatus?: (violation: string) => void;
  instanceId: string;
  /** This instance's API-key cache (server.ts starts it); none: every key is read from the database. */
  keyCache?: KeyCache;
}

export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config, storage, clock, secrets, logger } = options;
  // Every route as declared: tells a 405 from a 404, and how a path no route matches answers errors.
  const catalog = new RouteCatalog();
  const app: App = Fastify({
    loggerInstance: logger,
    // One line per request, written by our onResponse hook with the merchant id in it.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    genReqId: () => `req_${randomBase62(20)}`,
    rewriteUrl: (req) => rewriteVersionPrefix(req.url ?? '/'),
    // A stopping gateway answers requests on connections still open itself (http/load-shedding.ts).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A URL the router cannot even decode (bad percent-encoding, an over-long path segment) still gets
    // our headers, error shape and log line: Fastify runs no hooks for these.
    frameworkErrors: (error, request, reply) => {
      answerHeaders(request, reply);
      reply.raw.once('finish', () => logRequest(request, reply, request.routeOptions.url));
      sendError(request, reply, toAppError(error, request), catalog);
    },
    ...(config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();

  const keyCache = options.keyCache ?? noKeyCache;
  const circuits = createCircuitBreaker({
    failures: config.processorCircuit.failures,
    coolDownMs: config.processorCircuit.coolDownSeconds * 1000,
    now: () => clock.now().getTime(),
  });
  const ctx: AppContext = {
    config,
    storage,
    db: storage.db,
    clock,
    secrets,
    tokens: auth.createAccessTokens(secrets.jwtSecret, clock, storage.db),
    logger,
    jobs: new JobRunner(storage.db, clock, logger),
    callbackHandlers: new callbacks.CallbackHandlers(),
    vault: createVault(vaultKeys(secrets)),
    connectionHealth: circuits,
    circuits,
    processors: createProcessorRegistry(options.sandboxUrl, config.processorTimeoutMs),
    connectors: createConnectorPool({
      ...config.processorApis,
      timeoutMs: config.processorTimeoutMs,
      stripeJournal: processorConnections.storedAttemptJournal({ db: storage.db }),
    }),
    checkoutVerifier: checkoutSessions.checkoutTokenVerifier({ db: storage.db, clock }),
    panelSessions: panelSessions.panelSessionVerifier({ db: storage.db, clock, secret: secrets.jwtSecret }),
    instanceId: options.instanceId,
    keyCache,
    metrics: metrics.createMetrics({ db: storage.db, clock, storage, keyCache, circuits }, options.sandboxUrl),
  };
  // The one wiring point: what each module contributes to the job queue and the callback dispatch.
  ctx.jobs.use(paymentRequests.jobs(ctx));
  ctx.jobs.use(callbacks.jobs(ctx));
  ctx.jobs.use(payments.jobs(ctx), payments.sweeps(ctx));
  ctx.jobs.use({}, idempotency.sweeps(ctx));
  ctx.jobs.use({}, jobs.sweeps(ctx));
  for (const [source, handler] of Object.entries(payments.callbackHandlers(ctx))) {
    ctx.callbackHandlers.register(source as keyof ReturnType<typeof payments.callbackHandlers>, handler);
  }
  const notificationWorker = notifications.worker(ctx, {
    invitation: team.invitationMail(ctx),
    password_reset: auth.accountLinkMail(ctx),
    sign_in_link: auth.accountLinkMail(ctx),
  });
  ctx.jobs.use(notificationWorker.jobs, notificationWorker.sweeps);
  ctx.jobs.use({}, auth.sweeps(ctx));
  app.addHook('onClose', () => ctx.processors.close());
  app.addHook('onClose', async () => ctx.metrics.close());
  const stopCountingPayments = payments.watchStatusChanges((change) =>
    ctx.metrics.countPayment(change.status, change.processor, change.livemode),
  );
  app.addHook('onClose', async () => stopCountingPayments());
  app.addHook('onClose', () => notificationWorker.close());
  // Fastify runs onClose hooks last registered first, after the server stopped accepting and the requests
  // under way finished: the job loop stops here, before the hooks above close the clients its sends use.
  app.addHook('onClose', () => ctx.jobs.stop());
  app.decorate('ctx', ctx);
  onEffectFailure((error) =>
    logger.error({ err: error }, 'an after-commit effect failed; the committed answer stands'),
  );

  // Set first: plugin scopes registered below (Swagger UI, the front ends) inherit it.
  app.setErrorHandler((error, request, reply) => sendError(request, reply, toAppError(error, request), catalog));
  app.setValidatorCompiler(validatorCompiler);
  // Every content type but JSON is a 415 (Fastify would parse text/plain by default); scopes add their own.
  app.removeAllContentTypeParsers();
  registerJsonParsers(app);
  app.addHook('onRoute', (route) => catalog.add(route));
  // Fails the start when a route declares no access (route-policy.ts): every scope has added its routes by now.
  app.addHook('onReady', async () => catalog.assertComplete());
  app.decorate('routeCatalog', catalog);
  if (options.onUndeclaredStatus) reportUndeclaredStatuses(app, options.onUndeclaredStatus);

  // Order matters: headers first (every answer has them), then shedding (a refused request costs
  // nothing), transport and version checks and CORS before credentials, credentials before any body work.
  await securityHeaders(app);
  await loadShedding(app, options.loadLimits);
  app.addHook('onRequest', requireHttps(config));
  const apiVersion20 = notifications.deprecationOf(ctx, 'api-version-2.0');
  app.addHook('onRequest', checkApiVersion(apiVersion20));
  await checkoutCors(app, config.checkoutUrl);
  const authenticateCaller = authenticate({
    apiKeys: { verify: (key) => verifyApiKey(ctx, { key }) },
    tokens: ctx.tokens,
    checkoutVerifier: ctx.checkoutVerifier,
    panelSessions: ctx.panelSessions,
    config,
  });
  // Rate limits right after credentials (route hooks run after these; the caller is known) and before the body is read.
  const spendAddressQuota = await rateLimits(app, { config, clock, logger, secret: secrets.jwtSecret });
  app.addHook('onRequest', async (request, reply) => {
    try {
      await authenticateCaller(request);
    } catch (error) {
      // Failed credentials spend the client address's quota, so guessing keys is limited too.
      await spendAddressQuota(request, reply);
      throw error;
    }
  });
  app.addHook('preValidation', ignoreUnknownBodyFields);
  // Before any route: the document is collected from the routes as they are added.
  await openApi(app, config);
  // After credentials and validation: only a merchant's valid requests claim an idempotency key.
  idempotencyHooks(app, {
    claims: idempotency.claimStore(ctx.db),
    clock,
    instanceId: ctx.instanceId,
    vault: ctx.vault,
    fingerprintSecret: secrets.idempotencyFingerprintSecret,
  });
  app.addHook(
    'onResponse',
    syncHook((request, reply) => {
      // Read once: Fastify builds a new object of the route's options on every read.
      const route = request.routeOptions.url;
      logRequest(request, reply, route);
      ctx.metrics.observeRequest(request.method, route ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    }),
  );
  app.addHook('onSend', reportDeprecatedVersion(apiVersion20));

  app.setNotFoundHandler({ preHandler: [spendAddressQuota] }, (request, reply) =>
    sendError(request, reply, routeNotFound(catalog, request), catalog),
  );

  app.all(V1_GONE_PATH, { schema: { hide: true }, config: { auth: 'none' } }, async (request) => v1Gone(request));
  system.routes(app, ctx);
  auth.routes(app, ctx);
  panelSessions.routes(app, ctx);
  audit.routes(app, ctx);
  callbacks.routes(app, ctx);
  paymentRequests.routes(app, ctx);
  checkoutSessions.routes(app, ctx);
  customers.routes(app, ctx);
  processorConnections.routes(app, ctx);
  payments.routes(app, ctx);
  if (!config.sandboxUrl) await sandboxPages(app, options.sandboxUrl);
  notifications.routes(app, ctx);
  metrics.routes(app, ctx);
  reports.routes(app, ctx);
  team.routes(app, ctx);
  jobs.routes(app, ctx);
  await frontEnds(app, {
    dir: options.frontEndsDir ?? 'web/dist',
    checkoutPath: sameOrigin(config.checkoutUrl, config.publicUrl) ? new URL(config.checkoutUrl).pathname : undefined,
    // The gateway's own origin, the gateway-wide list, and the checkoutOrigins of the requested payment request's merchant.
    checkoutFrameAncestors: async (request) => {
      const paymentRequestId = Number((request.query as { requestId?: unknown }).requestId);
      const { checkoutOrigins } = await notifications.checkoutSettingsOf(ctx, { paymentRequestId });
      return [new URL(config.publicUrl).origin, ...config.checkoutFrameAncestors, ...checkoutOrigins];
    },
    legacyApiKey: {
      exchange: (apiKey, paymentRequestId) => checkoutSessions.exchangeLegacyApiKey(ctx, { apiKey, paymentRequestId }),
      deprecationHeaders: notifications.deprecationHeaders('checkout-api-key-parameter'),
    },
  });

  await app.ready();
  return app;
}

const sameOrigin = (a: string, b: string) => new URL(a).origin === new URL(b).origin;

function vaultKeys(secrets: Secrets) {
  const [current, ...previous] = parseVaultKeys(secrets.cardEncryptionKeys);
  return { current, previous, fingerprintSecret: secrets.cardFingerprintSecret };
}

/** Levels at which the request line is written (LOG_LEVEL=info and below). */
const REQUEST_LINE_LEVELS = new Set(['trace', 'debug', 'info']);

/** The one log line per request; its fields are gathered only when the line will be written. */
function logRequest(request: FastifyRequest, reply: FastifyReply, route: string | undefined): void {
  if (!REQUEST_LINE_LEVELS.has(request.log.level)) return;
  request.log.info(
    {
      method: request.method,
      route: route ?? null,
      url: request.originalUrl.split('?')[0],
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      merchantId: request.actor?.merchantId ?? null,
    },
    'request',
  );
}
