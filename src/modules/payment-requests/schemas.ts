import { Type, type Static } from '@sinclair/typebox';
import { ReceivedCallback } from '../callbacks/index.js';
import { PaidWith } from '../payment-facts.js';
import { PaymentFailure } from '../payment-failures.js';
import { AmountRangeQuery } from '../../lib/amount-range.js';
import { Page, PageQuery } from '../../lib/pagination.js';
import { PartialPayer } from '../../lib/payer.js';
import { Id, nullable } from '../../lib/schema.js';

/** The one source of validation, types and OpenAPI for the payment request endpoints. */

export const MAX_AMOUNT = 999_999_999.99;
export const MAX_METADATA_KEYS = 20;

const PAYMENT_REQUEST_STATUSES = [
  'open',
  'processing',
  'authorized',
  'paid',
  'partially_refunded',
  'refunded',
  'canceled',
  'expired',
] as const;
export const PaymentRequestStatus = Type.Union(PAYMENT_REQUEST_STATUSES.map((s) => Type.Literal(s)));

export const Metadata = Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: 40 },
  description: `Your own key-value pairs: at most ${MAX_METADATA_KEYS} keys of 1-40 characters, string values of at most 500 characters`,
});

const returnUrl = (description: string) =>
  nullable(
    Type.String({
      maxLength: 2048,
      description: `${description}: an absolute http or https URL (https with a live key), with paymentRequestId, paymentId and status added to its query`,
    }),
  );

/**
 * The merchant's options for the request's payments (docs/decisions.md "Merchant options of a payment"):
 * every payment inherits them, the hosted checkout's (checkout session token) always, since a token may
 * not set them; a payment submitted with an API key may name others, which then win.
 */
const MerchantOptions = {
  notifyUrl: Type.Optional(
    nullable(
      Type.String({
        maxLength: 2048,
        description:
          "Where the notifications of this request's payments and refunds go, instead of the settings' notifyUrl (http or https; private addresses refused outside development)",
      }),
    ),
  ),
  successUrl: Type.Optional(returnUrl("Where the payer's browser goes after a successful payment")),
  failureUrl: Type.Optional(returnUrl("Where the payer's browser goes after a failed payment")),
  captureDelayHours: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 7,
      description: '0 (default) = capture at once; 1-7 = authorize now, capture that many hours later',
    }),
  ),
};

/**
 * What the merchant already knows of the payer (docs/decisions.md "Payer defaults of a payment request"):
 * the hosted checkout fills these into its payments instead of asking them.
 */
const PayerDefaults = PartialPayer(
  "Payer fields the hosted checkout should not ask: any of the payment bodies' payer fields, with their bounds. " +
    "Fields left out come from the request's customer when it names one (name, email, phone as phoneNumber, " +
    'address, country); the checkout asks the rest',
);

export const CreatePaymentRequestBody = Type.Object(
  {
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT,
      description:
        "Major units (19.99 EUR), with no more decimals than the currency's minor unit (0 for JPY, 3 for KWD)",
    }),
    currency: Type.String({
      pattern: '^[A-Za-z]{3}$',
      description: 'ISO 4217 code of an active currency; any case, answered upper-case',
    }),
    reference: Type.String({ minLength: 1, maxLength: 100, description: 'Your own reference (order number)' }),
    customerId: Type.Optional(nullable(Id('A customer of yours, in the same mode as the key'))),
    description: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
    expiresAt: Type.Optional(
      nullable(
        Type.String({
          format: 'date-time',
          description: 'ISO 8601 date-time in the future; the request then expires if still open',
        }),
      ),
    ),
    metadata: Type.Optional(Metadata),
    payer: Type.Optional(PayerDefaults),
    ...MerchantOptions,
  },
  { title: 'CreatePaymentRequestBody' },
);
export type CreatePaymentRequestInput = Static<typeof CreatePaymentRequestBody>;

export const PaymentRequestRecord = Type.Object(
  {
    paymentRequestId: Type.Integer({ description: 'int64' }),
    amount: Type.Number({ description: 'Major units' }),
    currency: Type.String(),
    reference: Type.String(),
    status: PaymentRequestStatus,
    amountPaid: Type.Number({ description: 'Major units' }),
    amountRefunded: Type.Number({ description: 'Major units' }),
    customerId: nullable(Type.Integer()),
    description: nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    createDate: Type.String({ format: 'date-time' }),
    expiresAt: nullable(Type.String({ format: 'date-time' })),
    livemode: Type.Boolean(),
    notifyUrl: Type.Optional(
      nullable(
        Type.String({
          description:
            "Where this request's payment notifications go (null: the settings'); left out of the answer to a checkout session token",
        }),
      ),
    ),
    successUrl: nullable(Type.String({ description: "Where the payer's browser goes after a successful payment" })),
    failureUrl: nullable(Type.String({ description: "Where the payer's browser goes after a failed payment" })),
    captureDelayHours: Type.Integer({ description: "The capture delay of this request's payments (0: at once)" }),
    payer: PartialPayer(
      "The payer defaults: the body's payer, completed from the customer's record at creation; the hosted checkout " +
        'fills them in and asks only the rest. Also answered to the checkout session token',
    ),
    checkoutUrl: Type.String({
      description: 'The hosted checkout page for this request; add a checkout session token as `token`',
    }),
  },
  { title: 'PaymentRequest' },
);
export type PaymentRequestRecord = Static<typeof PaymentRequestRecord>;

export const PaymentRequestIdParams = Type.Object({ id: Id('Payment request id') });

/** The filters of the list and of its CSV export. */
const PaymentRequestFilters = {
  status: Type.Optional(PaymentRequestStatus),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Exact reference' })),
  customerId: Type.Optional(Id('Customer id')),
  createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (inclusive)' })),
  createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before (inclusive)' })),
  ...AmountRangeQuery,
};

export const ListPaymentRequestsQuery = Type.Object({ ...PageQuery, ...PaymentRequestFilters });
export type ListPaymentRequestsQuery = Static<typeof ListPaymentRequestsQuery>;

export const ExportPaymentRequestsQuery = Type.Object(PaymentRequestFilters);
export type ExportPaymentRequestsQuery = Static<typeof ExportPaymentRequestsQuery>;

export const LastPayment = Type.Object({
  paymentId: Type.Integer(),
  status: Type.String(),
  declineCode: nullable(Type.String()),
  failure: Type.Optional(PaymentFailure),
});
export type LastPayment = Static<typeof LastPayment>;

/** The last attempt as the status answers it, and how and by whom it was paid as GET /payments shows them. */
export const ListedLastPayment = Type.Object(
  {
    ...LastPayment.properties,
    ...PaidWith,
    card: nullable(
      Type.Object(
        { brand: Type.String(), last4: Type.String() },
        { description: "The card's brand and last 4 digits, nothing more (GET /payments/{paymentId} has the rest)" },
      ),
    ),
  },
  {
    description:
      "The request's last payment attempt (its newest payment): the lastPayment of GET /payment-requests/status/{id}, " +
      'with the method, payer, card, UPI id and wallet of GET /payments; null before the first attempt. Not the ' +
      "request's own payer, which holds the payer defaults",
  },
);
export type ListedLastPayment = Static<typeof ListedLastPayment>;

/** A request as the list shows it: the record, and its last payment attempt. */
export const ListedPaymentRequest = Type.Object(
  {
    ...PaymentRequestRecord.properties,
    lastPayment: nullable(ListedLastPayment),
  },
  { title: 'ListedPaymentRequest' },
);
export type ListedPaymentRequest = Static<typeof ListedPaymentRequest>;

export const PaymentRequestPage = Page(ListedPaymentRequest);

export const PaymentRequestStatusRecord = Type.Object({
  paymentRequestId: Type.Integer(),
  status: PaymentRequestStatus,
  amount: Type.Number({ description: 'Major units' }),
  unit: Type.String({ description: 'Currency code' }),
  referenceId: Type.String({ description: 'Your reference' }),
  lastPayment: nullable(LastPayment),
});

const at = Type.String({ format: 'date-time' });

/** One entry of a payment request's timeline; `kind` says which. */
export const TimelineEntry = Type.Union([
  Type.Object({
    kind: Type.Literal('created'),
    at,
    amount: Type.Number({ description: 'Major units' }),
    currency: Type.String(),
  }),
  Type.Object({
    kind: Type.Literal('event'),
    at,
    eventId: Type.String({ description: 'GET /events/{eventId}' }),
    type: Type.String({ description: 'The state change it announced (payment.succeeded, refund.succeeded…)' }),
  }),
  Type.Object({ kind: Type.Literal('callback'), at, callback: ReceivedCallback }),
  Type.Object({
    kind: Type.Literal('notification_attempt'),
    at,
    eventId: Type.String(),
    url: Type.String(),
    statusCode: nullable(Type.Integer()),
    durationMs: Type.Integer(),
    error: nullable(Type.Object({ error: Type.String(), code: Type.String(), message: Type.String() })),
  }),
]);
export type TimelineEntry = Static<typeof TimelineEntry>;

export const Timeline = Type.Object({
  paymentRequestId: Type.Integer(),
  status: PaymentRequestStatus,
  entries: Type.Array(TimelineEntry, { description: 'Oldest first' }),
});
