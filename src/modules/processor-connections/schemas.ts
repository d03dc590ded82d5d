import { Type, type Static, type TObject } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { nullable } from '../../lib/schema.js';

/**
 * Processor connections (docs/processors.md). Credentials are write-only: they are in the bodies and in
 * no answer. The create body is one variant per processor (`connectionVariantOf` picks it by `processor`),
 * so a missing credential is named against the processor the caller meant.
 */

const secret = (description: string) => Type.String({ minLength: 1, maxLength: 512, description });

export const StripeCredentials = Type.Object(
  {
    secretKey: secret('sk_test_… in test mode, sk_live_… in live mode'),
    webhookSecret: secret('The signing secret of the Stripe webhook endpoint (whsec_…)'),
  },
  { description: 'Stripe: the secret key of the connection’s mode and the webhook signing secret' },
);
export type StripeCredentials = Static<typeof StripeCredentials>;

export const AdyenCredentials = Type.Object(
  {
    apiKey: secret('The API key of the web service user'),
    merchantAccount: Type.String({ minLength: 1, maxLength: 255, description: 'The Adyen merchant account' }),
    hmacKey: secret('The HMAC key of the notification webhook (hex)'),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')], {
      description: "Adyen's environment: must be the connection's mode",
    }),
  },
  { description: 'Adyen: API key, merchant account, webhook HMAC key and the environment of the mode' },
);
export type AdyenCredentials = Static<typeof AdyenCredentials>;

export const SandboxCredentials = Type.Object({}, { description: 'The built-in sandbox takes no credentials: {}' });
export type SandboxCredentials = Static<typeof SandboxCredentials>;

export const Processor = Type.Union([Type.Literal('stripe'), Type.Literal('adyen'), Type.Literal('sandbox')], {
  description: 'The processor connected (sandbox: the built-in one, test mode only)',
});

export const Slot = Type.Union([Type.Literal('acme'), Type.Literal('globex'), Type.Literal('h2h')], {
  description:
    'acme, globex: the card paths /payments/creditCard/{slot}/{id}; h2h: host-to-host card and token payments ' +
    "and the hosted checkout's card form",
});

const slots = Type.Array(Slot, {
  minItems: 1,
  maxItems: 3,
  uniqueItems: true,
  description: 'The payment paths this connection serves',
});
const priority = Type.Integer({
  minimum: -1000000,
  maximum: 1000000,
  description: 'Among the connections serving a slot, higher is tried first (default 0)',
});
const name = Type.String({ minLength: 1, maxLength: 100, description: 'A name to tell connections apart' });

const common = { name: Type.Optional(name), slots, priority: Type.Optional(priority) };

export const StripeConnectionBody = Type.Object({
  processor: Type.Literal('stripe'),
  credentials: StripeCredentials,
  ...common,
});
export const AdyenConnectionBody = Type.Object({
  processor: Type.Literal('adyen'),
  credentials: AdyenCredentials,
  ...common,
});
export const SandboxConnectionBody = Type.Object({
  processor: Type.Literal('sandbox'),
  credentials: Type.Optional(SandboxCredentials),
  ...common,
});

export const CreateConnectionBody = Type.Union([StripeConnectionBody, AdyenConnectionBody, SandboxConnectionBody]);
export type CreateConnectionInput = Static<typeof CreateConnectionBody>;

const VARIANTS: Record<string, TObject> = {
  stripe: StripeConnectionBody,
  adyen: AdyenConnectionBody,
  sandbox: SandboxConnectionBody,
};

/** The create body's variant, by its `processor`; an unknown or missing processor is refused here. */
export function connectionVariantOf(body: Record<string, unknown>): TObject {
  const { processor } = body;
  if (processor === undefined) {
    throw new AppError('VALIDATION_ERROR', 'Missing required field: processor', {
      details: { missingFields: ['processor'] },
    });
  }
  const variant = typeof processor === 'string' ? VARIANTS[processor] : undefined;
  if (!variant) {
    throw new AppError('INVALID_FORMAT', "Field 'processor' must be one of: stripe, adyen, sandbox", {
      details: { field: 'processor', value: typeof processor === 'string' ? processor.slice(0, 64) : null },
    });
  }
  return variant;
}

export const UpdateConnectionBody = Type.Object(
  {
    name: Type.Optional(nullable(name)),
    slots: Type.Optional(slots),
    priority: Type.Optional(priority),
    credentials: Type.Optional(
      Type.Union([StripeCredentials, AdyenCredentials, SandboxCredentials], {
        description: "All of the connection's processor's credentials, replacing the stored ones",
      }),
    ),
  },
  { description: 'Only the fields sent change (at least one); null clears the name' },
);
export type UpdateConnectionInput = Static<typeof UpdateConnectionBody>;
export const UPDATABLE_FIELDS = Object.keys(UpdateConnectionBody.properties);

export const ConnectionParams = Type.Object({
  connectionId: Type.String({ minLength: 1, maxLength: 64, description: 'The connection id (pc_…)' }),
});

export const ProcessorConnection = Type.Object(
  {
    connectionId: Type.String({ description: 'pc_ + base62' }),
    processor: Processor,
    name: nullable(Type.String()),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')], {
      description: 'The mode of the key or panel that made it; it serves only that mode',
    }),
    slots: Type.Array(Slot),
    priority: Type.Integer(),
    health: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('open')], {
      description: 'ok; degraded: recent failures; open: its circuit is open and payments skip it',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A connection to a processor. Its credentials are write-only and never in an answer.' },
);
export type ProcessorConnection = Static<typeof ProcessorConnection>;

export const ConnectionList = Type.Object({
  data: Type.Array(ProcessorConnection, { description: 'Highest priority first, then oldest first' }),
});
export type ConnectionList = Static<typeof ConnectionList>;

export const ConnectionDeleted = Type.Object({ connectionId: Type.String(), deleted: Type.Literal(true) });
