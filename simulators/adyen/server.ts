import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Contract, type Operation, type Violation } from '../shared/contract.js';
import { documentUrl } from '../shared/documents.js';
import { type Fault, Faults, sleep } from '../shared/faults.js';
import { escapeHtml, type ListenOptions, listen, redirect, sendHtml, sendJson } from '../shared/http.js';
import { IdempotencyStore } from '../shared/idempotency.js';
import { type Json, isObject } from '../shared/json.js';
import type { LedgerEntry } from '../shared/ledger.js';
import { type Delivery, WebhookSender } from '../shared/webhooks.js';
import { AdyenPayments, type Answer, type NotificationItem, serviceError } from './payments.js';

const CHECKOUT = documentUrl('adyen-checkout-v72.json');
const WEBHOOKS = documentUrl('adyen-webhooks-v1.json');

export interface AdyenSimulatorOptions extends ListenOptions {
  /** The X-API-Key callers must present. Default AQE_simulator_key. */
  apiKey?: string;
  /** Where standard notifications are POSTed; none are sent without it (settable later: `setWebhookUrl`). */
  webhookUrl?: string;
  /** The notification HMAC key, hex. Default a fixed test key (`hmacKey` on the simulator). */
  hmacKey?: string;
  /** How long after the API answer a notification goes out. Default 0 (right after). */
  notificationDelayMs?: number;
  /** Base URL browsers use for the challenge page. Default the simulator's own URL. */
  publicUrl?: string;
}

export interface AdyenSimulator {
  /** Base URL; the Checkout API is under `${url}/v72`. */
  url: string;
  checkoutUrl: string;
  apiKey: string;
  hmacKey: string;
  /** Every request and answer that broke the documents, and every notification that did. */
  violations: Violation[];
  /** Every notification delivery attempt, in order. */
  webhooks: Delivery[];
  /** Queue a fault for the next `times` matching API requests (test control; not Adyen's API). */
  next(fault: Fault, times?: number): void;
  /** Money per pspReference. */
  ledger(): LedgerEntry[];
  /** Send a CHARGEBACK notification for a captured payment. */
  chargeback(pspReference: string): void;
  setWebhookUrl(url: string | undefined): void;
  /** Send every notification twice, as Adyen may. */
  duplicateWebhooks(on: boolean): void;
  webhooksSettled(): Promise<void>;
  close(): Promise<void>;
}

/** A test HMAC key (64 hex digits), as the Customer Area generates them. */
const DEFAULT_HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

/** Adyen's signing string: the listed fields joined by ':' (missing ones empty), HMAC-SHA256, base64. */
export function notificationHmac(item: NotificationItem, hexKey: string): string {
  const data = [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    item.amount.value,
    item.amount.currency,
    item.eventCode,
    String(item.success),
  ].join(':');
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(data, 'utf8').digest('base64');
}

/**
 * A contract simulator of Adyen's Checkout API (v72, the version @adyen/api-library 32 calls) and
 * its standard notifications: every request, answer and notification is validated against
 * Adyen's official OpenAPI documents (simulators/openapi/), and the behaviour is Adyen's test
 * environment as documented. State lives in memory.
 */
export async function startAdyenSimulator(options: AdyenSimulatorOptions = {}): Promise<AdyenSimulator> {
  const checkout = Contract.load(CHECKOUT);
  const webhooks = Contract.load(WEBHOOKS);
  checkout.warm();
  const apiKey = options.apiKey ?? 'AQE_simulator_key';
  const hmacKey = options.hmacKey ?? DEFAULT_HMAC_KEY;
  const violations: Violation[] = [];
  const faults = new Faults();
  const idempotency = new IdempotencyStore();
  const sender = new WebhookSender(options.webhookUrl);
  let copies = 1;
  let publicUrl = options.publicUrl;

  const notify = (item: NotificationItem) => {
    const signed = {
      additionalData: { hmacSignature: notificationHmac(item, hmacKey) },
      amount: item.amount,
      eventCode: item.eventCode,
      eventDate: new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      merchantAccountCode: item.merchantAccountCode,
      merchantReference: item.merchantReference,
      ...(item.originalReference ? { originalReference: item.originalReference } : {}),
      ...(item.paymentMethod ? { paymentMethod: item.paymentMethod } : {}),
      pspReference: item.pspReference,
      reason: item.reason ?? '',
      success: String(item.success),
    };
    const notification = { live: 'false', notificationItems: [{ NotificationRequestItem: signed }] };
    const validate = webhooks.lazy(`/webhooks/~1${item.eventCode}/post/requestBody/content/application~1json/schema`)();
    if (!validate(notification)) {
      violations.push({
        direction: 'webhook',
        operation: item.eventCode,
        errors: (validate.errors ?? []).map((e) => `notification${e.instancePath} ${e.message}`),
      });
    }
    sender.send(item.eventCode, JSON.stringify(notification), {}, copies, options.notificationDelayMs ?? 0);
  };
  const payments = new AdyenPayments(() => publicUrl ?? '', notify);

  const reply = (
    response: ServerResponse,
    operation: Operation | undefined,
    answer: Answer,
    headers: Record<string, string> = {},
  ) => {
    if (operation) {
      const errors = checkout.validateResponse(operation, answer.status, answer.body);
      // An answer the document does not describe (429) is Adyen's general error shape, not a simulator bug.
      if (errors.length > 0 && checkout.documents(operation, answer.status)) {
        violations.push({ direction: 'response', operation: operation.key, errors });
      }
    }
    sendJson(response, answer.status, answer.body, headers);
  };

  const faultAnswer = (response: ServerResponse, operation: Operation, fault: Fault): boolean => {
    if (fault.reset) {
      response.socket?.destroy();
      return true;
    }
    if (fault.hang) return true;
    if (fault.status) {
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      const answer =
        fault.status === 429
          ? serviceError(429, '000', 'Too Many Requests', 'throttling')
          : serviceError(fault.status, '000', 'Internal error: the request could not be processed', 'internal');
      reply(response, operation, answer, headers);
      return true;
    }
    return false;
  };

  const perform = (operation: Operation, params: Record<string, string>, body: Json | undefined): Answer => {
    const b = isObject(body) ? body : {};
    switch (operation.key) {
      case 'POST /payments':
        return payments.pay(b);
      case 'POST /payments/details':
        return payments.details(b);
      case 'POST /payments/{paymentPspReference}/captures':
        return payments.capture(params.paymentPspReference, b);
      case 'POST /payments/{paymentPspReference}/cancels':
        return payments.cancel(params.paymentPspReference, b);
      case 'POST /payments/{paymentPspReference}/refunds':
        return payments.refund(params.paymentPspReference, b);
      default:
        return serviceError(422, '000', `The simulator does not play ${operation.key}.`, 'validation');
    }
  };

  const api = async (request: IncomingMessage, response: ServerResponse, raw: string, url: URL) => {
    const method = request.method ?? 'GET';
    const found = checkout.match(method, url.pathname);
    if (!found) {
      violations.push({
        direction: 'request',
        operation: `${method} ${url.pathname}`,
        errors: ['no such operation in the document'],
      });
      return sendJson(response, 404, { status: 404, errorCode: '000', message: 'Not Found', errorType: 'validation' });
    }
    const { operation, params } = found;
    if (request.headers['x-api-key'] !== apiKey) {
      return reply(response, operation, serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    }
    let body: Json | undefined;
    const errors: string[] = [];
    try {
      body = raw === '' ? undefined : (JSON.parse(raw) as Json);
    } catch {
      errors.push('body is not JSON');
    }
    const contentType = request.headers['content-type'] ?? '';
    if (raw !== '' && !contentType.startsWith('application/json')) {
      errors.push(`content-type ${contentType} (the document takes application/json)`);
    }
    const query = Object.fromEntries(url.searchParams);
    errors.push(...checkout.validateRequest(operation, { params, query, headers: request.headers, body }));
    if (errors.length > 0) {
      violations.push({ direction: 'request', operation: operation.key, errors });
      return reply(
        response,
        operation,
        serviceError(422, '702', `Invalid request: ${errors.join('; ')}`, 'validation'),
      );
    }

    const fault = faults.take(operation.key, url.pathname);
    if (fault && !fault.processed && !fault.delayMs && faultAnswer(response, operation, fault)) return;

    const key = headerValue(request.headers['idempotency-key']);
    const fingerprint = JSON.stringify([operation.key, url.pathname, body ?? {}]);
    const keyHeader: Record<string, string> = key ? { 'idempotency-key': key } : {};
    if (key) {
      const seen = idempotency.lookup(key, fingerprint);
      if (seen && 'replay' in seen) return reply(response, operation, seen.replay as Answer, keyHeader);
      if (seen) {
        // Adyen refuses a key in use by another request or first used with another body.
        return reply(
          response,
          operation,
          serviceError(422, '704', 'request already processed or in progress', 'validation'),
        );
      }
      idempotency.begin(key);
    }
    let answer: Answer | undefined;
    try {
      answer = perform(operation, params, body);
    } finally {
      if (key) idempotency.finish(key, answer && { ...answer, fingerprint });
    }
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault && faultAnswer(response, operation, fault)) return;
    reply(response, operation, answer, keyHeader);
  };

  const challenge = async (request: IncomingMessage, response: ServerResponse, raw: string, pspReference: string) => {
    const payment = payments.pending(pspReference);
    if (!payment)
      return sendHtml(response, 409, '<!doctype html><title>3-D Secure</title><p>Nothing to authenticate.</p>');
    if (request.method !== 'POST') {
      return sendHtml(
        response,
        200,
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>3-D Secure test page</title>
<h1>Adyen simulator: 3-D Secure</h1>
<p>Authenticate ${escapeHtml(payment.amount.currency)} ${payment.amount.value} for ${escapeHtml(payment.reference)}?</p>
<form method="post"><button name="action" value="approve">Authenticate</button>
<button name="action" value="deny">Fail authentication</button></form></html>`,
      );
    }
    const back = payments.authenticate(pspReference, new URLSearchParams(raw).get('action') === 'approve');
    if (!back) return sendHtml(response, 200, '<!doctype html><title>3-D Secure</title><p>Done.</p>');
    redirect(response, back);
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
    checkoutUrl: `${server.url}${checkout.basePath}`,
    apiKey,
    hmacKey,
    violations,
    webhooks: sender.deliveries,
    next: (fault, times = 1) => faults.add(fault, times),
    ledger: () => payments.ledger(),
    chargeback: (pspReference) => payments.chargeback(pspReference),
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
