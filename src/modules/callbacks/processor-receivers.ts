import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { App } from '../../http/fastify-app.js';
import { checkJsonShape, registerJsonParsers } from '../../http/json-body.js';
import { ADYEN_WEBHOOK_ANSWER, verifyAdyenCallbacks } from '../../processors/adyen/index.js';
import { callbackOf, verifyStripeWebhook } from '../../processors/stripe/index.js';
import type { ProviderCallback } from '../../processors/types.js';
import { inTransaction } from '../../storage/db-context.js';
import { connectionById, type UsableConnection } from '../processor-connections/index.js';
import type { CallbacksContext } from './context.js';
import { recordProcessorEvent, type RecordedCallback } from './record-callback.js';
import { ProcessorWebhookBody, ReceivedResponse, type ProcessorCallback, type ProcessorSource } from './schemas.js';

type WebhookHeaders = Record<string, string | string[] | undefined>;

/** How one processor's webhook is checked and read, with the secret of the connection it names. */
interface Receiver {
  source: ProcessorSource;
  /** Throws INVALID_WEBHOOK_SIGNATURE unless the whole delivery verifies; else its events as callback records. */
  verify(rawBody: Buffer, headers: WebhookHeaders, connection: UsableConnection): ProviderCallback[];
}

const RECEIVERS: Record<ProcessorSource, Receiver> = {
  stripe: {
    source: 'stripe',
    verify: (rawBody, headers, connection) =>
      verifyStripeWebhook(rawBody, headers, secretOf(connection)).map(callbackOf),
  },
  adyen: {
    source: 'adyen',
    verify: (rawBody, headers, connection) => verifyAdyenCallbacks(rawBody, headers, secretOf(connection)),
  },
};

const secretOf = (connection: UsableConnection): string =>
  connection.processor === 'stripe'
    ? connection.credentials.webhookSecret
    : connection.processor === 'adyen'
      ? connection.credentials.hmacKey
      : '';

/** The connection a request's path names, then the events its signature verified (set by the hooks below). */
const connections = new WeakMap<FastifyRequest, UsableConnection>();
const verified = new WeakMap<FastifyRequest, ProcessorCallback[]>();

const ConnectionParams = Type.Object({
  connectionId: Type.String({ minLength: 1, maxLength: 64, description: 'The processor connection (pc_…)' }),
});

const NOT_HERE = () => new AppError('NOT_FOUND', 'No webhook receiver at this address');

/**
 * `POST /callbacks/stripe/{connectionId}` and `POST /callbacks/adyen/{connectionId}`: the processors'
 * own webhooks, verified with the secret of the connection the path names, each event recorded once
 * (by its event id) and processed by a job after the answer.
 */
export function processorReceivers(app: App, ctx: CallbacksContext): void {
  app.register(async (scope) => stripeReceiver(scope as App, ctx));
  app.register(async (scope) => adyenReceiver(scope as App, ctx));
}

async function stripeReceiver(scope: App, ctx: CallbacksContext): Promise<void> {
  verifyBeforeParsing(scope, ctx, RECEIVERS.stripe);
  scope.post(
    '/callbacks/stripe/:connectionId',
    {
      schema: {
        operationId: 'receiveStripeWebhook',
        summary: "Stripe's webhook for one Stripe connection",
        description:
          "Register this URL as a Stripe webhook endpoint and give its signing secret as the connection's webhookSecret. " +
          "Stripe-Signature is checked over the raw body with that secret (the Stripe SDK's check, timestamp tolerance " +
          'included) before the body is read: a missing or non-matching signature answers 401 INVALID_WEBHOOK_SIGNATURE ' +
          '(WH001) and nothing is recorded. An unknown connection, or one of another processor, answers 404. A verified ' +
          'event is stored before the 200; the same event id again answers 200 with duplicate: true and has no second ' +
          'effect. Events the gateway does not act on are stored and acknowledged. Processing happens after the answer.',
        tags: ['Callbacks'],
        params: ConnectionParams,
        body: ProcessorWebhookBody,
        response: { 200: ReceivedResponse },
      },
      // A signature that does not verify (the scope's hooks).
      config: { auth: 'none', answers: [401] },
    },
    async (request) => {
      const [recorded] = await record(ctx, request, 'stripe');
      return recorded.duplicate
        ? { received: true as const, eventId: recorded.eventId, duplicate: true as const }
        : { received: true as const, eventId: recorded.eventId };
    },
  );
}

async function adyenReceiver(scope: App, ctx: CallbacksContext): Promise<void> {
  verifyBeforeParsing(scope, ctx, RECEIVERS.adyen);
  scope.post(
    '/callbacks/adyen/:connectionId',
    {
      schema: {
        operationId: 'receiveAdyenWebhook',
        summary: "Adyen's standard notifications for one Adyen connection",
        description:
          "Register this URL as a Standard webhook and give its HMAC key as the connection's hmacKey. Every item's " +
          'additionalData.hmacSignature is checked with that key before anything is recorded: one item that does not ' +
          'verify refuses the whole delivery with 401 INVALID_WEBHOOK_SIGNATURE (WH001), nothing recorded, so Adyen ' +
          'sends it again. An unknown connection, or one of another processor, answers 404. A verified delivery answers ' +
          `${ADYEN_WEBHOOK_ANSWER} (text/plain) once each item is stored as its own event; an item received before ` +
          '(same event code, pspReference and success) has no second effect. Processing happens after the answer.',
        tags: ['Callbacks'],
        params: ConnectionParams,
        body: ProcessorWebhookBody,
        response: {
          200: {
            description: `${ADYEN_WEBHOOK_ANSWER}, as Adyen expects`,
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
      config: { auth: 'none', answers: [401] },
    },
    async (request, reply) => {
      await record(ctx, request, 'adyen');
      return reply.type('text/plain; charset=utf-8').send(ADYEN_WEBHOOK_ANSWER);
    },
  );
}

/**
 * Finds the connection first (a database read, so in a hook), then verifies the raw bytes in the
 * parser: a forged or altered body is refused before anything parses or validates it.
 */
function verifyBeforeParsing(scope: App, ctx: CallbacksContext, receiver: Receiver): void {
  scope.addHook('preParsing', async (request) => {
    const { connectionId } = request.params as { connectionId?: string };
    const connection =
      typeof connectionId === 'string' && connectionId.length <= 64
        ? await connectionById(ctx, connectionId)
        : undefined;
    // The same answer for an id that does not exist and one of another processor: it tells nothing.
    if (!connection || connection.processor !== receiver.source) throw NOT_HERE();
    connections.set(request, connection);
  });
  const check = (request: FastifyRequest, bytes: Buffer) => {
    const connection = connections.get(request)!;
    let callbacks: ProviderCallback[];
    try {
      callbacks = receiver.verify(bytes, request.headers, connection);
    } catch (error) {
      if (error instanceof AppError && error.error === 'INVALID_WEBHOOK_SIGNATURE') {
        request.log.warn(
          {
            route: request.routeOptions.url,
            connectionId: connection.connectionId,
            reason: error.details?.reason ?? error.message,
          },
          'processor webhook refused',
        );
        throw error;
      }
      // Signed with the connection's secret, yet not an event the connector reads: the body's limits
      // first (json-body.ts), as for any body, then a plain refusal.
      checkJsonShape(bytes.toString('utf8'));
      throw new AppError('INVALID_JSON', `The body is not a ${receiver.source} webhook event`);
    }
    verified.set(
      request,
      callbacks.map((callback) => ({
        ...callback,
        providerData: { ...callback.providerData, connectionId: connection.connectionId },
      })),
    );
  };
  registerJsonParsers(scope, { beforeParse: check });
  // A request without a body never reaches the parser; it is checked here, still before validation.
  scope.addHook('preValidation', async (request) => {
    if (request.rawBody === undefined) check(request, Buffer.alloc(0));
  });
}

/** Every verified event of the delivery, in one transaction: all recorded, or none. */
async function record(
  ctx: CallbacksContext,
  request: FastifyRequest,
  source: ProcessorSource,
): Promise<Array<RecordedCallback & { eventId: string }>> {
  const callbacks = verified.get(request)!;
  const recorded = await inTransaction(ctx, async (trx) => {
    const results: Array<RecordedCallback & { eventId: string }> = [];
    for (const callback of callbacks) {
      const result = await recordProcessorEvent(trx, { source, callback, rawBody: request.rawBody! });
      results.push({ ...result, eventId: callback.eventId });
    }
    return results;
  });
  for (const [i, result] of recorded.entries()) {
    const callback = callbacks[i];
    request.log.info(
      {
        callback: {
          source,
          connectionId: callback.providerData.connectionId,
          eventId: callback.eventId,
          transactionId: callback.transactionId,
          status: callback.status,
          callbackEventId: result.id,
          duplicate: result.duplicate,
        },
      },
      'callback received',
    );
  }
  // Committed: process it now rather than at the next poll, without holding the answer.
  if (recorded.some((r) => !r.duplicate))
    ctx.jobs.runDue().catch((error) => ctx.logger.error({ err: error }, 'callback processing pass failed'));
  return recorded;
}
