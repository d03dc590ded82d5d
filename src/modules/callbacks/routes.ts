import type { FastifyRequest } from 'fastify';
import { inTransaction } from '../../storage/db-context.js';
import type { CallbacksContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { merchantScopeOf } from '../../http/credentials.js';
import { registerJsonParsers } from '../../http/json-body.js';
import { listReceivedCallbacks } from './list-received.js';
import { recordProviderCallback } from './record-callback.js';
import {
  isKnownStatus,
  ProviderCallbackBody,
  ReceivedCallbackPage,
  ReceivedCallbacksQuery,
  ReceivedResponse,
  ThreeDsCallbackBody,
  type ProviderCallback,
  type ProcessorSource,
  type ProviderSource,
} from './schemas.js';
import { checkSignature, SIGNATURE_HEADER, signatureError } from './signature.js';
import { processorReceivers } from './processor-receivers.js';
import { testCallbackRoutes } from './test-routes.js';

/** The operation each receiver is in the OpenAPI document: receive<Source>Callback. */
const OPERATION_IDS: Record<Exclude<ProviderSource, ProcessorSource>, string> = {
  svc: 'receiveSvcCallback',
  'svc-gateway': 'receiveSvcGatewayCallback',
  svcwh: 'receiveSvcWebhookCallback',
  '3ds': 'receiveThreeDsCallback',
};

const SUMMARIES: Record<Exclude<ProviderSource, ProcessorSource>, string> = {
  svc: 'Standard provider callback (card and UPI outcomes)',
  'svc-gateway': 'Gateway provider callback (asynchronous card processor outcomes)',
  svcwh: 'Dedicated webhook notifications (refunds and chargebacks)',
  '3ds': '3-D Secure authentication result',
};

/**
 * How old an event's timestamp may be. Events are kept (and so recognised when sent again) for at least
 * this long, so a captured body is either recognised or refused; processors retry for days, not weeks.
 * A timestamp ahead of our clock is accepted: only the processor can sign one.
 */
export const CALLBACK_MAX_AGE_DAYS = 30;

const DESCRIPTION =
  'Signed by the provider: X-Webhook-Signature is the hex HMAC-SHA512 (or HMAC-SHA256) of the raw body with the shared ' +
  'callback signing secret, in either letter case. A missing, malformed or non-matching signature answers 401 ' +
  'INVALID_WEBHOOK_SIGNATURE (WH001) before the body is validated. A verified event is stored before the 200; the same ' +
  'eventId again, on this or any other provider receiver, answers 200 with duplicate: true and has no second effect. ' +
  `A timestamp more than ${CALLBACK_MAX_AGE_DAYS} days old answers 400 INVALID_FORMAT. The 3-D Secure authentication value is stored ` +
  'encrypted and shown redacted. Processing happens after the answer.';

/** The routes of the callbacks module: the signed provider receivers and the test endpoints. */
export function callbackRoutes(app: App, ctx: CallbacksContext): void {
  app.register(async (scope) => providerReceivers(scope as App, ctx));
  processorReceivers(app, ctx);
  testCallbackRoutes(app, ctx);
  app.get(
    '/callback-events',
    {
      schema: {
        operationId: 'listReceivedCallbacks',
        summary: 'Received callbacks: provider callbacks about your payments and test calls sent with your key',
        description:
          'Newest first, with the signature verdict. Provider callbacks are yours when they name one of your payments in ' +
          "this key's mode; test calls when they were sent with your X-API-Key.",
        tags: ['Callbacks'],
        querystring: ReceivedCallbacksQuery,
        response: { 200: ReceivedCallbackPage },
      },
      config: { auth: 'api_key' },
    },
    async (request) => listReceivedCallbacks(ctx, { scope: merchantScopeOf(request), query: request.query }),
  );
}

async function providerReceivers(scope: App, ctx: CallbacksContext): Promise<void> {
  const secret = ctx.secrets.callbackSigningSecret;
  // Verify, then parse: a forged or altered body is refused before anything reads it,
  // so it learns nothing from parsing or validation errors.
  registerJsonParsers(scope, { beforeParse: (request, bytes) => requireSignature(request, secret, bytes) });
  // A request without a body never reaches the parser; it is checked here, still before validation.
  scope.addHook('preValidation', async (request) => {
    if (request.rawBody === undefined) requireSignature(request, secret, '');
  });

  for (const source of ['svc', 'svc-gateway', 'svcwh', '3ds'] as const) {
    scope.post(
      `/callbacks/${source}`,
      {
        schema: {
          operationId: OPERATION_IDS[source],
          summary: SUMMARIES[source],
          description: DESCRIPTION,
          tags: ['Callbacks'],
          body: source === '3ds' ? ThreeDsCallbackBody : ProviderCallbackBody,
          response: { 200: ReceivedResponse },
        },
        // A signature that does not verify (the scope's hooks above).
        config: { auth: 'none', answers: [401] },
      },
      async (request) => receive(ctx, request, source, request.body),
    );
  }
}

function requireSignature(request: FastifyRequest, secret: string, signed: string | Buffer): void {
  const check = checkSignature(secret, signed, request.headers[SIGNATURE_HEADER]);
  if (check === 'valid') return;
  request.log.warn({ route: request.routeOptions.url, reason: check }, 'callback signature rejected');
  throw signatureError(check);
}

async function receive(
  ctx: CallbacksContext,
  request: FastifyRequest,
  source: Exclude<ProviderSource, ProcessorSource>,
  body: ProviderCallback,
) {
  const oldest = ctx.clock.now().getTime() - CALLBACK_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
  if (Date.parse(body.timestamp) < oldest)
    throw new AppError(
      'INVALID_FORMAT',
      `Field 'timestamp' is more than ${CALLBACK_MAX_AGE_DAYS} days old; an event this old is refused as a possible replay`,
      { details: { field: 'timestamp', value: body.timestamp } },
    );
  const recorded = await inTransaction(ctx, (trx) =>
    recordProviderCallback(trx, { source, body, rawBody: request.rawBody! }),
  );
  const known = isKnownStatus(source, body.status);
  request.log.info(
    {
      callback: {
        source,
        eventId: body.eventId,
        transactionId: body.transactionId,
        status: body.status,
        callbackEventId: recorded.id,
        duplicate: recorded.duplicate,
      },
    },
    'callback received',
  );
  if (!recorded.duplicate) {
    // Unknown statuses are acknowledged (a refusal would only make the provider retry forever) but not processed.
    if (!known)
      request.log.warn(
        { callback: { source, eventId: body.eventId, status: body.status } },
        'callback status not processed',
      );
    // Committed: process it now rather than at the next poll, without holding the answer.
    ctx.jobs.runDue().catch((error) => ctx.logger.error({ err: error }, 'callback processing pass failed'));
  }
  return recorded.duplicate
    ? { received: true as const, eventId: body.eventId, duplicate: true as const }
    : { received: true as const, eventId: body.eventId };
}
