import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery } from '../../lib/pagination.js';
import { Id, nullable } from '../../lib/schema.js';
import { EVENT_TYPES } from './event-types.js';

/** Merchant settings, the event log and notices (docs/decisions.md "Merchant settings, events and notices"). */

const EventTypeName = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type' },
);
const notifyUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Default notification URL (http or https; private addresses refused outside development)',
});
const origin = Type.String({ minLength: 1, maxLength: 255, description: 'An exact origin, e.g. https://shop.example' });
const retryDeclineCodes = Type.Array(
  Type.String({ pattern: '^[0-9A-Z]{2}$', description: 'A decline code, e.g. 05' }),
  {
    maxItems: 20,
    description:
      'Decline codes retried once on the next processor connection of the same path (soft declines such as 05 or 91); empty: none (the default)',
  },
);

export const Settings = Type.Object({
  businessName: nullable(Type.String()),
  notifyUrl: nullable(Type.String()),
  checkoutOrigins: Type.Array(Type.String()),
  walletEnabled: Type.Boolean({ description: 'The hosted checkout offers wallet payments (Google Pay, Apple Pay)' }),
  retryDeclineCodes,
  eventTypes: nullable(Type.Array(Type.String())),
  availableEventTypes: Type.Array(EventTypeName, {
    description: 'Every event type eventTypes may name (what a settings form offers)',
  }),
  webhookSecretPrefix: Type.String({ description: 'The first characters of the current signing secret' }),
  endpointDisabledAt: nullable(
    Type.String({
      format: 'date-time',
      description:
        'Set when deliveries to notifyUrl stopped (410, or 3 days of failures); setting notifyUrl again re-enables it',
    }),
  ),
});
export type Settings = Static<typeof Settings>;

export const UpdateSettingsBody = Type.Object(
  {
    businessName: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    notifyUrl: Type.Optional(nullable(notifyUrl)),
    checkoutOrigins: Type.Optional(Type.Array(origin, { maxItems: 20, description: 'repeats count once' })),
    walletEnabled: Type.Optional(
      Type.Boolean({ description: 'Offer wallet payments in the hosted checkout (off by default)' }),
    ),
    retryDeclineCodes: Type.Optional(retryDeclineCodes),
    eventTypes: Type.Optional(
      nullable(Type.Array(EventTypeName, { description: 'null: every type (repeats count once)' })),
    ),
  },
  { description: 'Only the fields sent change; notifyUrl null clears it, eventTypes null means every type' },
);
export type UpdateSettingsInput = Static<typeof UpdateSettingsBody>;

export const NewWebhookSecret = Type.Object({
  secret: Type.String({ description: 'whsec_…: shown once; verifies both signature headers' }),
  previousValidUntil: Type.String({
    format: 'date-time',
    description: 'Until then deliveries also carry a signature with the previous secret',
  }),
});

export const EventParams = Type.Object({
  eventId: Type.String({ pattern: '^evt_[1-9][0-9]{0,15}$', description: 'Event id, evt_…' }),
});

export const ListEventsQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(EventTypeName),
  paymentId: Type.Optional(Id('Only events of this payment')),
});
export type ListEventsInput = Static<typeof ListEventsQuery>;

export const DeliveryAttempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  url: Type.String(),
  statusCode: nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came" })),
  durationMs: Type.Integer(),
  error: nullable(
    Type.Object({
      error: Type.String({ description: 'e.g. WEBHOOK_TIMEOUT' }),
      code: Type.String({ description: 'e.g. WH002' }),
      message: Type.String(),
    }),
  ),
});

const eventMembers = {
  id: Type.String({ description: 'evt_…, stable across deliveries: receivers de-duplicate on it' }),
  type: Type.String(),
  created: Type.String({ format: 'date-time' }),
  apiVersion: Type.String(),
  livemode: Type.Boolean(),
  data: Type.Object({ object: Type.Record(Type.String(), Type.Unknown()) }),
};
export const EventSummary = Type.Object(eventMembers);
export type EventEnvelope = Static<typeof EventSummary>;
export const EventDetail = Type.Object({
  ...eventMembers,
  pendingDeliveries: Type.Integer({ description: 'Deliveries still queued or backing off' }),
  attempts: Type.Array(DeliveryAttempt),
});
export type EventDetail = Static<typeof EventDetail>;
export const EventList = Page(EventSummary);

export const ResendAnswer = Type.Object({ id: Type.String(), queued: Type.Boolean() });

export const ListNoticesQuery = Type.Object({ ...PageQuery });
export type ListNoticesInput = Static<typeof ListNoticesQuery>;

export const Notice = Type.Object({
  at: Type.String({ format: 'date-time' }),
  to: Type.String({ description: "The merchant's users it went to" }),
  subject: Type.String(),
  kind: Type.String({
    description:
      'deprecation, api_key_exposed, account_locked, endpoint_disabled, or to one person only: invitation (the invitee), password_reset and sign_in_link (the user)',
  }),
  sentAt: nullable(Type.String({ format: 'date-time', description: 'null while queued (or with no mail server)' })),
});
export const NoticeList = Page(Notice);

export const SendTestEventBody = Type.Object(
  { type: EventTypeName },
  { $id: 'SendTestEventBody', description: 'Which event type to send a sample of' },
);
export type SendTestEventInput = Static<typeof SendTestEventBody>;

export const TestEventDelivery = Type.Object(
  {
    id: Type.String({ description: 'evt_test_…: the test event sent (never in the event log, never re-sent)' }),
    type: EventTypeName,
    url: Type.String({ description: 'Where it was sent: the notifyUrl of the settings' }),
    delivered: Type.Boolean({ description: 'The receiver answered 2xx' }),
    statusCode: nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came" })),
    durationMs: Type.Integer(),
    error: nullable(
      Type.Object({
        error: Type.String({ description: 'WEBHOOK_DELIVERY_FAILED, WEBHOOK_TIMEOUT or WEBHOOK_TARGET_FORBIDDEN' }),
        code: Type.String(),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'TestEventDelivery', description: 'The outcome of the one attempt to deliver a test event' },
);
export type TestEventDelivery = Static<typeof TestEventDelivery>;
