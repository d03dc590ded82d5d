import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { CallbacksContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import type { MerchantScope } from '../../lib/scope.js';
import { verifyApiKey } from '../api-keys/index.js';
import { recordTestCallback } from './record-callback.js';
import { TestReceivedResponse } from './schemas.js';
import { checkSignature, SIGNATURE_HEADER } from './signature.js';

const TAGS = ['Callbacks'];
const SIGNATURE_NOTE =
  'No signature is required. When X-Webhook-Signature is sent, the answer says whether it verified (signatureValid). ' +
  'With your X-API-Key (optional) the call is listed in your received callbacks (GET /callback-events).';

/**
 * Test endpoints: for providers and merchants to check connectivity and their signing code.
 * Every call is recorded in callback_events (signature_valid null when none was sent) and logged.
 */
export function testCallbackRoutes(app: App, ctx: CallbacksContext): void {
  app.post(
    '/callbacks/test/json',
    {
      schema: {
        operationId: 'sendTestJsonCallback',
        summary: 'Test callback, JSON body',
        description: `Accepts any JSON document; the signature covers the raw body. ${SIGNATURE_NOTE}`,
        tags: TAGS,
        body: Type.Unknown({ description: 'Any JSON document' }),
        response: { 200: TestReceivedResponse },
      },
      config: { auth: 'none' },
    },
    async (request) => {
      const raw = request.rawBody ?? '';
      const signatureValid = verdict(request, ctx, raw);
      return record(ctx, request, 'test/json', request.body, raw, signatureValid);
    },
  );

  // The form parser exists only in this scope: no other route accepts form bodies.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      request.rawBody = text;
      done(null, formFields(text));
    });
    (scope as App).post(
      '/callbacks/test/form',
      {
        schema: {
          operationId: 'sendTestFormCallback',
          summary: 'Test callback, form body',
          description: `application/x-www-form-urlencoded; the signature covers the raw body. ${SIGNATURE_NOTE}`,
          tags: TAGS,
          response: { 200: TestReceivedResponse },
        },
        config: { auth: 'none' },
      },
      async (request) => {
        const raw = request.rawBody ?? '';
        const signatureValid = verdict(request, ctx, raw);
        return record(ctx, request, 'test/form', request.body ?? {}, raw, signatureValid);
      },
    );
  });

  app.get(
    '/callbacks/test/text',
    {
      schema: {
        operationId: 'sendTestTextCallback',
        summary: 'Test callback, plain text answer',
        description:
          'Answers text/plain. A GET has no body, so the signature covers the raw query string as sent (the part after "?", ' +
          `empty when there is none). ${SIGNATURE_NOTE}`,
        tags: TAGS,
        response: {
          200: {
            description: 'Lines "received: true", "eventId: …", and "signatureValid: …" when a signature was sent',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
      config: { auth: 'none' },
    },
    async (request, reply) => {
      const url = request.raw.url ?? '';
      const rawQuery = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
      const signatureValid = verdict(request, ctx, rawQuery);
      const answer = await record(ctx, request, 'test/text', { query: formFields(rawQuery) }, rawQuery, signatureValid);
      const lines = [`received: true`, `eventId: ${answer.eventId ?? ''}`];
      if (answer.signatureValid !== undefined) lines.push(`signatureValid: ${answer.signatureValid}`);
      return reply.type('text/plain; charset=utf-8').send(`${lines.join('\n')}\n`);
    },
  );
}

/** null when no signature was sent; otherwise whether it verified (never an error here). */
function verdict(request: FastifyRequest, ctx: CallbacksContext, signed: string): boolean | null {
  const header = request.headers[SIGNATURE_HEADER];
  if (header === undefined) return null;
  return checkSignature(ctx.secrets.callbackSigningSecret, signed, header) === 'valid';
}

async function record(
  ctx: CallbacksContext,
  request: FastifyRequest,
  source: 'test/json' | 'test/form' | 'test/text',
  payload: unknown,
  rawBody: string,
  signatureValid: boolean | null,
) {
  const eventId = eventIdOf(source === 'test/text' ? (payload as { query: unknown }).query : payload);
  // test/json keeps the text it received (an empty body is JSON null); the others their flat fields.
  const stored = source === 'test/json' ? { json: rawBody.trim() === '' ? 'null' : rawBody } : { fields: payload };
  const sentFor = await sender(ctx, request);
  const id = await recordTestCallback(ctx, { source, eventId, payload: stored, rawBody, signatureValid, sentFor });
  request.log.info({ callback: { source, eventId, signatureValid, callbackEventId: id } }, 'callback received');
  return { received: true as const, eventId, ...(signatureValid === null ? {} : { signatureValid }) };
}

/**
 * The merchant and mode of the X-API-Key the caller may send along (no credential is required here):
 * the call then shows in that merchant's received callbacks. A key that does not verify is ignored.
 */
async function sender(ctx: CallbacksContext, request: FastifyRequest): Promise<MerchantScope | undefined> {
  const key = request.headers['x-api-key'];
  if (typeof key !== 'string') return undefined;
  const found = await verifyApiKey(ctx, { key });
  return found && { merchantId: found.merchantId, livemode: found.mode === 'live' };
}

function eventIdOf(payload: unknown): string | null {
  const value =
    payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>).eventId : undefined;
  return typeof value === 'string' && value !== '' ? value.slice(0, 255) : null;
}

/** Form and query fields; a repeated name keeps every value. */
function formFields(text: string): Record<string, string | string[]> {
  // No prototype: a field named __proto__ is just a field.
  const fields = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}
