import { dedupeKey } from '../../jobs/catalog.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { DbContext } from '../../storage/db-context.js';
import type { CallbacksContext } from './context.js';
import type { MerchantScope } from '../../lib/scope.js';
import type { CallbackEventSource } from './tables.js';
import { redacted, redactForm, redactJson } from './redact-secrets.js';
import { insertCallbackEvent } from './repository.js';
import type { ProcessorCallback, ProcessorSource, ProviderCallback, ProviderSource } from './schemas.js';

type RecordingContext = DbContext & Pick<CallbacksContext, 'vault'>;

export interface RecordedCallback {
  id: number | undefined;
  duplicate: boolean;
}

/**
 * Persists a verified provider callback and, in the same transaction, the job that processes it,
 * so an acknowledged event is never lost and never processed twice. The same eventId again is
 * a no-op (decisions.md: acknowledged, no second effect).
 */
export async function recordProviderCallback(
  ctx: RecordingContext,
  input: { source: ProviderSource; body: ProviderCallback; rawBody: string },
): Promise<RecordedCallback> {
  const now = ctx.clock.now();
  // The whole signed document, members the schema does not name included: it is the audit record.
  // The text itself (the parser has bounded its depth, json-body.ts), but with its secrets redacted:
  // the ones processing needs are kept sealed beside it.
  const { text, secrets } = redactJson(input.rawBody);
  const id = await insertCallbackEvent(ctx.db, {
    source: input.source,
    event_id: input.body.eventId,
    transaction_id: input.body.transactionId,
    status: input.body.status,
    payload: text,
    raw_body: text,
    sealed_secrets: secrets ? ctx.vault.seal(JSON.stringify(secrets)) : null,
    signature_valid: true,
    received_at: now,
  });
  return enqueueProcessing(ctx, id, now);
}

/**
 * The same for one event of a processor's own webhook (Stripe's event, one item of Adyen's batch):
 * what processing reads is the connector's callback record of it, naming the connection it came
 * through; the body as received is kept beside it, secrets redacted, as the audit record.
 */
export async function recordProcessorEvent(
  ctx: RecordingContext,
  input: { source: ProcessorSource; callback: ProcessorCallback; rawBody: string },
): Promise<RecordedCallback> {
  const now = ctx.clock.now();
  const { callback } = input;
  const id = await insertCallbackEvent(ctx.db, {
    source: input.source,
    event_id: callback.eventId,
    transaction_id: callback.transactionId || null,
    status: callback.status,
    payload: JSON.stringify(callback),
    raw_body: redactJson(input.rawBody).text,
    signature_valid: true,
    received_at: now,
  });
  return enqueueProcessing(ctx, id, now);
}

async function enqueueProcessing(ctx: DbContext, id: number | undefined, now: Date): Promise<RecordedCallback> {
  if (id === undefined) return { id, duplicate: true };
  await enqueueJob(ctx.db, 'callback.process', {
    payload: { callbackEventId: id },
    runAt: now,
    merchantId: null,
    dedupeKey: dedupeKey('callback.process', id),
  });
  return { id, duplicate: false };
}

/**
 * Test endpoints record every call as it came; there is nothing to process, so it is final at once.
 * `payload` is the JSON text as received (test/json), or the flat fields of a form or query string
 * (strings and arrays of strings, so serialising them cannot recurse deeply).
 */
export async function recordTestCallback(
  ctx: DbContext,
  input: {
    source: Extract<CallbackEventSource, `test/${string}`>;
    eventId: string | null;
    payload: { json: string } | { fields: unknown };
    rawBody: string;
    signatureValid: boolean | null;
    /** The merchant whose API key came with the call, so its developers area lists it. */
    sentFor: MerchantScope | undefined;
  },
): Promise<number> {
  const now = ctx.clock.now();
  // Nothing processes a test call, so its secrets are dropped rather than sealed.
  const [payload, rawBody] =
    'json' in input.payload
      ? [redactJson(input.payload.json).text, redactJson(input.rawBody).text]
      : [JSON.stringify(redacted(input.payload.fields)), redactForm(input.rawBody)];
  const id = await insertCallbackEvent(ctx.db, {
    source: input.source,
    event_id: input.eventId,
    transaction_id: null,
    status: null,
    payload,
    raw_body: rawBody,
    signature_valid: input.signatureValid,
    received_at: now,
    processed_at: now,
    merchant_id: input.sentFor?.merchantId ?? null,
    livemode: input.sentFor?.livemode ?? null,
  });
  return id!;
}
