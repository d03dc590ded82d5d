import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyError } from 'fastify';
import { acsRoutes } from './acs.js';
import { Challenges } from './challenges.js';
import { CallbackSender } from './callbacks.js';
import type { SandboxApp, SandboxContext } from './context.js';
import { controlRoutes } from './control.js';
import { Ledger } from './ledger.js';
import { cardProcessorRoutes } from './processors.js';
import { UpiCollects } from './upi-collects.js';
import { upiPayerRoutes } from './upi-payer.js';
import { upiRoutes } from './upi.js';
import { SandboxError, Timers } from './util.js';
import { walletRoutes } from './wallet.js';

export interface SandboxOptions {
  /** 0 = random (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where callbacks go, e.g. http://127.0.0.1:8080 (settable later: `setGatewayUrl`). */
  gatewayUrl: string;
  /** CALLBACK_SIGNING_SECRET: callbacks carry the hex HMAC-SHA512 of the raw body in X-Webhook-Signature. */
  callbackSecret: string;
  /** SANDBOX_LATENCY_MS: added to every processor answer. Default 0. */
  latencyMs?: number;
  /** UPI_COLLECT_TTL_SECONDS: an unanswered UPI collect expires after this. Default 300. */
  upiCollectTtlSeconds?: number;
  /** Base URL browsers use for the ACS page and the UPI payer page (default: the sandbox's own URL). */
  publicUrl?: string;
}

export interface Sandbox {
  url: string;
  setGatewayUrl(url: string): void;
  /** Where browsers reach the ACS and UPI payer pages (a gateway relaying them, say); default the sandbox's own URL. */
  setPublicUrl(url: string): void;
  close(): Promise<void>;
}

/**
 * The sandbox acquirer network: acme (synchronous card processor), globex (asynchronous card
 * processor), a 3-D Secure ACS, a UPI PSP and a wallet processor, all in one HTTP app that
 * talks to the gateway only over HTTP. Its state lives in memory: restarting it forgets every
 * payment, collect request and callback.
 */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const timers = new Timers();
  const callbacks = new CallbackSender(options.gatewayUrl.replace(/\/+$/, ''), options.callbackSecret, timers);
  const ctx: SandboxContext = {
    latencyMs: options.latencyMs ?? 0,
    upiCollectTtlSeconds: options.upiCollectTtlSeconds ?? 300,
    timers,
    callbacks,
    ledgers: { acme: new Ledger('acme'), globex: new Ledger('gbx'), wallet: new Ledger('wal') },
    challenges: new Challenges(),
    collects: new UpiCollects(options.upiCollectTtlSeconds ?? 300),
  };
  const app = buildSandboxApp(ctx);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const setPublicUrl = (publicUrl: string) => {
    ctx.challenges.setBaseUrl(publicUrl);
    ctx.collects.setBaseUrl(publicUrl);
  };
  setPublicUrl(options.publicUrl ?? url);

  let closing: Promise<void> | undefined;
  return {
    url,
    setGatewayUrl: (gatewayUrl) => callbacks.setGatewayUrl(gatewayUrl),
    setPublicUrl,
    close: () =>
      (closing ??= (async () => {
        timers.close(); // wakes held answers, drops scheduled callbacks and retries
        await callbacks.close();
        await app.close();
      })()),
  };
}

export function buildSandboxApp(ctx: SandboxContext): SandboxApp {
  // Quiet by default, and never a logger that could print a card number or CVV.
  const app = Fastify({
    logger: false,
    // Closing ends every connection at once, a held (X-Sandbox-Hang-Ms) answer included.
    forceCloseConnections: true,
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as SandboxApp;

  // An empty JSON body (void, capture without amount) reads as {}.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? {} : JSON.parse(body as string));
    } catch {
      done(new SandboxError(400, 'invalid_request', 'body is not valid JSON'), undefined);
    }
  });
  // The ACS page posts a plain HTML form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.setErrorHandler((error: FastifyError | SandboxError, _request, reply) => {
    if (error instanceof SandboxError) {
      return reply.code(error.statusCode).send({ error: error.code, message: error.message, ...error.extra });
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    return reply
      .code(status)
      .send({ error: status === 500 ? 'internal_error' : 'invalid_request', message: error.message });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );

  app.register(async (scope) => cardProcessorRoutes(scope as SandboxApp, ctx, 'acme'), { prefix: '/acme/v1' });
  app.register(async (scope) => cardProcessorRoutes(scope as SandboxApp, ctx, 'globex'), { prefix: '/globex/v1' });
  app.register(async (scope) => walletRoutes(scope as SandboxApp, ctx), { prefix: '/wallet/v1' });
  app.register(async (scope) => upiRoutes(scope as SandboxApp, ctx), { prefix: '/upi/v1' });
  acsRoutes(app, ctx);
  upiPayerRoutes(app, ctx);
  controlRoutes(app, ctx);
  return app;
}
