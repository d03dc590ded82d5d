import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Contract, type Operation, type Violation } from '../shared/contract.js';
import { documentUrl } from '../shared/documents.js';
import { type Fault, Faults, sleep } from '../shared/faults.js';
import { decodeForm, typed } from '../shared/form.js';
import { escapeHtml, type ListenOptions, listen, redirect, sendHtml, sendJson } from '../shared/http.js';
import { IdempotencyStore } from '../shared/idempotency.js';
import { type Json, type JsonObject, isObject } from '../shared/json.js';
import type { LedgerEntry } from '../shared/ledger.js';
import { type Delivery, WebhookSender } from '../shared/webhooks.js';
import { apiError, newId, now } from './objects.js';
import { type Answer, StripePayments } from './payments.js';

const DOCUMENT = documentUrl('stripe.json');
/** The API version of the document the simulator is validated against (its `info.version`). */
export const STRIPE_DOCUMENT_API_VERSION = '2020-08-27';

export interface StripeSimulatorOptions extends ListenOptions {
  /** The secret key callers must present (Bearer or Basic). Default sk_test_simulator. */
  apiKey?: string;
  /** Where events are POSTed; none are sent without it (settable later: `setWebhookUrl`). */
  webhookUrl?: string;
  /** The endpoint's signing secret (Stripe-Signature). Default whsec_simulator. */
  webhookSecret?: string;
  /** Send every event twice, as Stripe may. Default false (settable later: `duplicateWebhooks`). */
  duplicateWebhooks?: boolean;
  /** Base URL browsers use for the 3-D Secure page. Default the simulator's own URL. */
  publicUrl?: string;
}

export interface StripeSimulator {
  url: string;
  apiKey: string;
  webhookSecret: string;
  /** Every request and answer that broke the document, and every event that did. Empty when all kept it. */
  violations: Violation[];
  /** Every webhook delivery attempt, in order. */
  webhooks: Delivery[];
  /** Queue a fault for the next `times` matching API requests (test control; not Stripe's API). */
  next(fault: Fault, times?: number): void;
  /** Money per PaymentIntent. */
  ledger(): LedgerEntry[];
  /** Raise a dispute (charge.dispute.created) on a PaymentIntent's captured charge. */
  dispute(paymentIntentId: string): void;
  setWebhookUrl(url: string | undefined): void;
  duplicateWebhooks(on: boolean): void;
  /** Resolves when every queued webhook got its answer. */
  webhooksSettled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A contract simulator of Stripe's PaymentIntents API: every request and every answer is validated
 * against Stripe's official OpenAPI document (simulators/openapi/stripe.json), and the behaviour is
 * Stripe's test mode as documented: test cards, 3-D Secure, capture, cancel, refunds, idempotency
 * keys and signed events. State lives in memory.
 */
export async function startStripeSimulator(options: StripeSimulatorOptions = {}): Promise<StripeSimulator> {
  const contract = Contract.load(DOCUMENT);
  contract.warm();
  for (const name of ['event', 'payment_intent', 'charge', 'refund', 'dispute']) contract.schema(name);
  const apiKey = options.apiKey ?? 'sk_test_simulator';
  const webhookSecret = options.webhookSecret ?? 'whsec_simulator';
  const violations: Violation[] = [];
  const faults = new Faults();
  const idempotency = new IdempotencyStore();
  const sender = new WebhookSender(options.webhookUrl);
  let copies = options.duplicateWebhooks ? 2 : 1;
  let publicUrl = options.publicUrl;

  const emit = (type: string, object: JsonObject, resource: string) => {
    const event = {
      id: newId('evt'),
      object: 'event',
      api_version: STRIPE_DOCUMENT_API_VERSION,
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const validateEvent = contract.schema('event');
    const validateObject = contract.schema(resource);
    const errors = [
      ...(validateEvent(event) ? [] : (validateEvent.errors ?? []).map((e) => `event${e.instancePath} ${e.message}`)),
      ...(validateObject(object)
        ? []
        : (validateObject.errors ?? []).map((e) => `data.object${e.instancePath} ${e.message}`)),
    ];
    if (errors.length > 0) violations.push({ direction: 'webhook', operation: type, errors });
    const body = JSON.stringify(event, null, 2);
    const t = now();
    const signature = createHmac('sha256', webhookSecret).update(`${t}.${body}`).digest('hex');
    sender.send(type, body, { 'stripe-signature': `t=${t},v1=${signature}` }, copies);
  };

  const payments = new StripePayments(() => publicUrl ?? '', emit);

  const reply = (
    response: ServerResponse,
    operation: Operation | undefined,
    answer: Answer,
    headers: Record<string, string> = {},
  ) => {
    if (operation) {
      const errors = contract.validateResponse(operation, answer.status, answer.body);
      if (errors.length > 0) violations.push({ direction: 'response', operation: operation.key, errors });
    }
    sendJson(response, answer.status, answer.body, {
      'request-id': `req_${randomBytes(7).toString('hex')}`,
      ...headers,
    });
  };

  const faultAnswer = (response: ServerResponse, operation: Operation, fault: Fault): boolean => {
    if (fault.reset) {
      response.socket?.destroy();
      return true;
    }
    if (fault.hang) return true; // held until the caller gives up or the simulator closes
    if (fault.status) {
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      if (fault.shouldRetry !== undefined) headers['stripe-should-retry'] = String(fault.shouldRetry);
      const body =
        fault.status === 429
          ? apiError('invalid_request_error', 'Too many requests hit the API too quickly.', { code: 'rate_limit' })
          : apiError('api_error', 'An unknown error occurred while processing this request.');
      reply(response, operation, { status: fault.status, body }, headers);
      return true;
    }
    return false;
  };

  const perform = (operation: Operation, params: Record<string, string>, body: JsonObject): Answer => {
    switch (operation.key) {
      case 'POST /v1/payment_methods':
        return payments.createPaymentMethod(body);
      case 'POST /v1/payment_intents':
        return payments.createPaymentIntent(body);
      case 'GET /v1/payment_intents/{intent}':
        return payments.retrieve(params.intent);
      case 'POST /v1/payment_intents/{intent}/confirm':
        return payments.confirm(params.intent, body);
      case 'POST /v1/payment_intents/{intent}/capture':
        return payments.capture(params.intent, body);
      case 'POST /v1/payment_intents/{intent}/cancel':
        return payments.cancel(params.intent, body);
      case 'POST /v1/refunds':
        return payments.refund(body);
      case 'GET /v1/refunds/{refund}':
        return payments.retrieveRefund(params.refund);
      default:
        return {
          status: 404,
          body: apiError('invalid_request_error', `The simulator does not play ${operation.key}.`),
        };
    }
  };

  const api = async (request: IncomingMessage, response: ServerResponse, raw: string, url: URL) => {
    const method = request.method ?? 'GET';
    const found = contract.match(method, url.pathname);
    if (!found) {
      violations.push({
        direction: 'request',
        operation: `${method} ${url.pathname}`,
        errors: ['no such operation in the document'],
      });
      return sendJson(
        response,
        404,
        apiError('invalid_request_error', `Unrecognized request URL (${method}: ${url.pathname}).`),
      );
    }
    const { operation, params } = found;
    const denied = authenticate(request.headers.authorization, apiKey);
    if (denied) return reply(response, operation, { status: 401, body: denied });

    const query = typed(decodeForm(url.search.slice(1)), operation.querySchema, (s) => contract.resolve(s));
    const body = raw === '' ? undefined : typed(decodeForm(raw), operation.bodySchema, (s) => contract.resolve(s));
    const errors = contract.validateRequest(operation, {
      params,
      query: isObject(query) ? query : {},
      headers: request.headers,
      body,
    });
    const contentType = request.headers['content-type'] ?? '';
    if (raw !== '' && !contentType.startsWith('application/x-www-form-urlencoded')) {
      errors.push(`content-type ${contentType} (the document takes application/x-www-form-urlencoded)`);
    }
    if (errors.length > 0) {
      violations.push({ direction: 'request', operation: operation.key, errors });
      return reply(response, operation, {
        status: 400,
        body: apiError('invalid_request_error', `Invalid request: ${errors.join('; ')}`, { code: 'parameter_invalid' }),
      });
    }

    const fault = faults.take(operation.key, url.pathname);
    if (fault && !fault.processed && !fault.delayMs && faultAnswer(response, operation, fault)) return;

    const key = method === 'POST' ? headerValue(request.headers['idempotency-key']) : undefined;
    const fingerprint = JSON.stringify([operation.key, url.pathname, body ?? {}]);
    if (key) {
      const seen = idempotency.lookup(key, fingerprint);
      if (seen && 'replay' in seen) {
        return reply(response, operation, seen.replay as Answer, {
          'idempotent-replayed': 'true',
          'idempotency-key': key,
        });
      }
      if (seen && 'conflict' in seen) {
        return reply(response, operation, {
          status: 400,
          body: apiError(
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          ),
        });
      }
      if (seen) {
        return reply(response, operation, {
          status: 409,
          body: apiError(
            'invalid_request_error',
            'There is currently another in-progress request using this Idempotent Key.',
            {
              code: 'idempotency_key_in_use',
            },
          ),
        });
      }
      idempotency.begin(key);
    }
    let answer: Answer | undefined;
    try {
      answer = perform(operation, params, isObject(body) ? body : {});
    } finally {
      if (key) idempotency.finish(key, answer && { ...answer, fingerprint });
    }
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault && faultAnswer(response, operation, fault)) return;
    reply(response, operation, answer, key ? { 'idempotency-key': key } : {});
  };

  const challenge = async (request: IncomingMessage, response: ServerResponse, raw: string, id: string) => {
    const pi = payments.intents.get(id);
    if (!pi || pi.status !== 'requires_action') {
      return sendHtml(response, 409, '<!doctype html><title>3-D Secure</title><p>Nothing to authenticate.</p>');
    }
    if (request.method !== 'POST') {
      const card = pi.paymentMethod?.card.number.slice(-4) ?? '????';
      return sendHtml(
        response,
        200,
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>3-D Secure test page</title>
<h1>Stripe simulator: 3-D Secure</h1>
<p>Authenticate ${escapeHtml(pi.currency.toUpperCase())} ${pi.amount} on the card ending ${escapeHtml(card)}?</p>
<form method="post"><button name="action" value="approve">Complete authentication</button>
<button name="action" value="deny">Fail authentication</button></form></html>`,
      );
    }
    const approved = new URLSearchParams(raw).get('action') === 'approve';
    payments.authenticate(pi, approved);
    if (!pi.returnUrl) return sendHtml(response, 200, '<!doctype html><title>3-D Secure</title><p>Done.</p>');
    const back = new URL(pi.returnUrl);
    back.searchParams.set('payment_intent', pi.id);
    back.searchParams.set('payment_intent_client_secret', pi.clientSecret);
    back.searchParams.set('redirect_status', approved ? 'succeeded' : 'failed');
    redirect(response, back.toString());
  };

  const server = await listen(options, async (request, response, raw) => {
    const url = new URL(request.url ?? '/', 'http://simulator');
    const page = /^\/3ds\/([^/]+)$/.exec(url.pathname);
    if (page) return challenge(request, response, raw, page[1]);
    return api(request, response, raw, url);
  });
  publicUrl ??= server.url;

  return {
    url: server.url,
    apiKey,
    webhookSecret,
    violations,
    webhooks: sender.deliveries,
    next: (fault, times = 1) => faults.add(fault, times),
    ledger: () => payments.ledger(),
    dispute: (id) => payments.dispute(id),
    setWebhookUrl: (url) => (sender.url = url),
    duplicateWebhooks: (on) => (copies = on ? 2 : 1),
    webhooksSettled: () => sender.settled(),
    close: async () => {
      await server.close();
      await sender.close();
    },
  };
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Stripe takes the secret key as `Bearer <key>` or as the Basic user name. */
function authenticate(header: string | undefined, apiKey: string): Json | undefined {
  if (!header) {
    return apiError(
      'invalid_request_error',
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  }
  const [scheme, value = ''] = header.split(' ');
  const key =
    scheme.toLowerCase() === 'bearer'
      ? value
      : scheme.toLowerCase() === 'basic'
        ? Buffer.from(value, 'base64').toString('utf8').split(':')[0]
        : '';
  if (key === apiKey) return undefined;
  return apiError(
    'invalid_request_error',
    `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`,
  );
}
