import { Type, type Static } from '@sinclair/typebox';
import type { CallbackEventSource } from './tables.js';
import { Page, PageQuery } from '../../lib/pagination.js';
import { nullable } from '../../lib/schema.js';

/** Path segments of the provider receivers; each is the `source` of the events it records. */
export const PROVIDER_SOURCES = [
  'svc',
  'svc-gateway',
  'svcwh',
  '3ds',
  'stripe',
  'adyen',
] as const satisfies readonly CallbackEventSource[];
export type ProviderSource = (typeof PROVIDER_SOURCES)[number];

/** The processors whose own webhooks reach `/callbacks/{processor}/{connectionId}`. */
export type ProcessorSource = Extract<ProviderSource, 'stripe' | 'adyen'>;

/**
 * Callback statuses each receiver understands (decisions.md, States). Any other status is not
 * rejected: a 4xx would make the provider retry a message that can never succeed, so it is
 * stored, acknowledged, logged and left unprocessed (see process-callback-event.ts).
 */
export const KNOWN_STATUSES: Record<ProviderSource, readonly string[]> = {
  svc: ['success', 'failed', 'pending', 'requires_action', 'refunded'],
  'svc-gateway': ['success', 'failed', 'pending', 'requires_action', 'refunded'],
  svcwh: ['refunded', 'chargeback'],
  '3ds': ['success', 'failed', 'pending', 'requires_action'],
  // The connectors' callback records (processors/stripe/events.ts, processors/adyen/webhook.ts): an
  // authorization's outcome, a refund's, a dispute; anything else keeps its event type as status.
  stripe: ['succeeded', 'failed', 'pending', 'requires_action', 'refunded', 'refund_failed', 'chargeback'],
  adyen: ['succeeded', 'failed', 'refunded', 'refund_failed', 'chargeback', 'capture_failed', 'cancellation_failed'],
};

export const isKnownStatus = (source: ProviderSource, status: string): boolean =>
  KNOWN_STATUSES[source].includes(status);

const ProviderData = Type.Object(
  {
    reference: Type.Optional(
      Type.String({ maxLength: 255, description: 'The gateway id the processor was given (payment or refund)' }),
    ),
    declineCode: Type.Optional(Type.String({ maxLength: 16 })),
    declineReason: Type.Optional(Type.String({ maxLength: 255 })),
    upiResponse: Type.Optional(Type.String({ maxLength: 16 })),
    challengeUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    refundId: Type.Optional(Type.String({ maxLength: 255 })),
  },
  // Provider-specific: members this schema does not name are kept, not stripped.
  {
    additionalProperties: true,
    description: 'Provider-specific data; the members named here are the ones the gateway reads',
  },
);

const commonFields = {
  eventId: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Unique per event; a re-send of the same event reuses it',
  }),
  transactionId: Type.String({ minLength: 1, maxLength: 255, description: "The processor's id of the transaction" }),
  status: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'success, failed, pending, requires_action, refunded, or chargeback (svcwh only). Other values are stored and acknowledged but not processed.',
  }),
  amount: Type.Integer({ minimum: 0, maximum: 99_999_999_999, description: 'Integer minor units of currency' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, upper case' }),
  timestamp: Type.String({ format: 'date-time', description: 'When the status changed (ISO 8601)' }),
  providerData: ProviderData,
};

export const ProviderCallbackBody = Type.Object(commonFields);
export type ProviderCallback = Static<typeof ProviderCallbackBody>;

/**
 * One event of a processor's own webhook as processing reads it: the connector's callback record
 * (processors/stripe/events.ts callbackOf, processors/adyen/webhook.ts verifyAdyenCallbacks) with
 * the connection whose secret verified it, so only that connection's payments are touched.
 */
export interface ProcessorCallback {
  eventId: string;
  transactionId: string;
  status: string;
  amount: number;
  currency: string;
  timestamp: string;
  providerData: Record<string, unknown> & { connectionId: string };
}

/** What a processor's webhook body is described as: its own format, verified before it is read. */
export const ProcessorWebhookBody = Type.Object(
  {},
  {
    additionalProperties: true,
    title: 'ProcessorWebhook',
    description: "The processor's own webhook body (a Stripe event, an Adyen notification), verified before it is read",
  },
);

export const ThreeDsCallbackBody = Type.Object({
  ...commonFields,
  // An enum rather than a union of literals, so a wrong value is reported as "must be one of: Y, N, A, U, R".
  threeDsResult: Type.Unsafe<'Y' | 'N' | 'A' | 'U' | 'R'>({
    type: 'string',
    enum: ['Y', 'N', 'A', 'U', 'R'],
    description: 'EMV 3-D Secure transStatus: Y authenticated, N not, A attempted, U unavailable, R rejected',
  }),
  // Absent when authentication failed (no ECI or CAVV is issued for N/R).
  eci: Type.Optional(Type.String({ pattern: '^[0-9]{2}$', description: 'Electronic commerce indicator' })),
  // Empty or absent when authentication failed; accepted either way so a provider is never made to retry forever.
  authenticationValue: Type.Optional(Type.String({ maxLength: 128, description: 'CAVV/AAV issued by the ACS' })),
});
export type ThreeDsCallback = Static<typeof ThreeDsCallbackBody>;

export const ReceivedResponse = Type.Object({
  received: Type.Literal(true),
  eventId: Type.String(),
  duplicate: Type.Optional(
    Type.Literal(true, { description: 'This eventId was received before; nothing was done again' }),
  ),
});

export const TestReceivedResponse = Type.Object({
  received: Type.Literal(true),
  eventId: Type.Union([Type.String(), Type.Null()], {
    description: 'The eventId member or parameter, when one was sent',
  }),
  signatureValid: Type.Optional(
    Type.Boolean({ description: 'Present when X-Webhook-Signature was sent: whether it verified' }),
  ),
});

/** A received callback as the merchant's developers area shows it. */
export const ReceivedCallback = Type.Object({
  callbackId: Type.Integer(),
  source: Type.String({
    description: 'svc, svc-gateway, svcwh, 3ds, stripe, adyen, or test/json, test/form, test/text',
  }),
  eventId: nullable(Type.String()),
  transactionId: nullable(Type.String({ description: "The processor's payment id it names" })),
  status: nullable(Type.String()),
  signatureValid: nullable(
    Type.Boolean({ description: 'Whether the signature verified; null: a test call sent none (providers must sign)' }),
  ),
  receivedAt: Type.String({ format: 'date-time' }),
  processedAt: nullable(Type.String({ format: 'date-time' })),
  processingError: nullable(Type.String({ description: 'Why it had no effect (yet), when it did not' })),
  payload: Type.Unknown({
    description:
      "The body as received (test/form and test/text: its fields; stripe and adyen: the gateway's record of the verified event)",
  }),
});
export type ReceivedCallback = Static<typeof ReceivedCallback>;

export const ReceivedCallbacksQuery = Type.Object({
  ...PageQuery,
  source: Type.Optional(
    Type.Union(
      (['svc', 'svc-gateway', 'svcwh', '3ds', 'stripe', 'adyen', 'test/json', 'test/form', 'test/text'] as const).map(
        (s) => Type.Literal(s),
      ),
    ),
  ),
});
export type ReceivedCallbacksQuery = Static<typeof ReceivedCallbacksQuery>;

export const ReceivedCallbackPage = Page(ReceivedCallback);
