import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { validatorCompiler } from '../../src/http/validation.js';
import type { EventCatalog, EventType } from '../../src/modules/events/index.js';
import { EventSummary } from '../../src/modules/notifications/schemas.js';
import { PaymentRequestRecord } from '../../src/modules/payment-requests/schemas.js';
import { Payment } from '../../src/modules/payments/schemas.js';

/**
 * The schemas an event a merchant receives is checked against, as a merchant validating notifications
 * would. The payload schema of every event type: the API's own schema of the object where it has one, else
 * one written here, which the compiler holds to the event catalog's type (Same below).
 */
const RefundEvent = Type.Object(
  {
    refundId: Type.Integer(),
    paymentId: Type.Integer(),
    amount: Type.Integer({ minimum: 1 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  },
  { additionalProperties: false },
);
const ApiKeyExposed = Type.Object(
  {
    keyId: Type.Integer(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    exposedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
const VersionDeprecated = Type.Object(
  {
    feature: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }),
    deprecatedAt: Type.String({ format: 'date-time' }),
    sunsetAt: Type.String({ format: 'date-time' }),
    migrationNote: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const same: [
  Same<Static<typeof RefundEvent>, EventCatalog['refund.succeeded']>,
  Same<Static<typeof ApiKeyExposed>, EventCatalog['api_key.exposed']>,
  Same<Static<typeof VersionDeprecated>, EventCatalog['api.version.deprecated']>,
  Same<Static<typeof Payment>, EventCatalog['payment.succeeded']>,
  Same<Static<typeof PaymentRequestRecord>, EventCatalog['payment_request.expired']>,
] = [true, true, true, true, true];
void same;

const PAYLOAD_SCHEMAS: Record<EventType, TSchema> = {
  'payment.succeeded': Payment,
  'payment.failed': Payment,
  'payment.requires_action': Payment,
  'payment.authorized': Payment,
  'payment.canceled': Payment,
  'refund.succeeded': RefundEvent,
  'refund.failed': RefundEvent,
  'payment_request.expired': PaymentRequestRecord,
  'api_key.exposed': ApiKeyExposed,
  'api.version.deprecated': VersionDeprecated,
};

// The gateway's own validator, as strict as it is with request bodies (no coercion, every error).
const validateEnvelope = validatorCompiler({ schema: EventSummary, httpPart: 'body' });
const validatePayload = Object.fromEntries(
  Object.entries(PAYLOAD_SCHEMAS).map(([type, schema]) => [type, validatorCompiler({ schema, httpPart: 'body' })]),
) as Record<EventType, ReturnType<typeof validatorCompiler>>;

/** What is wrong with a test event as received (empty when nothing): its envelope, its mark, its payload. */
export function validateEvent(event: Record<string, any>): string[] {
  const problems: string[] = [];
  if (!validateEnvelope(event))
    problems.push(...(validateEnvelope.errors ?? []).map((e) => `envelope${e.instancePath} ${e.message}`));
  if (event.test !== true) problems.push('not marked test: true');
  if (!String(event.id).startsWith('evt_test_')) problems.push(`id ${event.id} is not a test event's`);
  const validate = validatePayload[event.type as EventType];
  if (!validate) problems.push(`unknown type ${event.type}`);
  else if (!validate(event.data?.object))
    problems.push(...(validate.errors ?? []).map((e) => `data.object${e.instancePath} ${e.message}`));
  return problems;
}
