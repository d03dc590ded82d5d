import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { Id, nullable } from '../../lib/schema.js';
import { optionalProperties, PayerFields } from '../../lib/payer.js';
import { AmountRangeQuery } from '../../lib/amount-range.js';
import { Page, PageQuery } from '../../lib/pagination.js';
import { PaidWith } from '../payment-facts.js';
import { PaymentFailure } from '../payment-failures.js';

/** Field bounds from the spec's "Payer and payment submission fields" table. */
const url = (description: string) => nullable(Type.String({ maxLength: 2048, description }));

/** The merchant's options (payments/merchant-options.ts): the payment request's apply where the body names none. */
const MERCHANT_ONLY =
  "API key only: refused with a checkout session token (400 INVALID_FORMAT); default: the payment request's";
const returnUrl = (description: string) =>
  url(`${description}: an absolute http or https URL (https with a live key). ${MERCHANT_ONLY}`);

const Card = {
  number: Type.String({
    minLength: 8,
    maxLength: 19,
    description: 'Card number (PAN); never stored in clear or shown again',
  }),
  expiration: Type.String({ minLength: 1, pattern: '^\\d{2}\\/\\d{2}$', description: 'MM/YY' }),
  cvv: Type.String({ minLength: 3, maxLength: 4, pattern: '^\\d+$', description: 'Never stored or logged' }),
};

export const BrowserInfo = Type.Object({
  acceptHeader: Type.Optional(Type.String({ maxLength: 2048 })),
  colorDepth: Type.Optional(Type.String({ maxLength: 16 })),
  ip: Type.Optional(Type.String({ maxLength: 64 })),
  language: Type.Optional(Type.String({ maxLength: 64 })),
  screenHeight: Type.Optional(Type.String({ maxLength: 16 })),
  screenWidth: Type.Optional(Type.String({ maxLength: 16 })),
  timezone: Type.Optional(Type.String({ maxLength: 64 })),
  userAgent: Type.Optional(Type.String({ maxLength: 2048 })),
  javaEnabled: Type.Optional(Type.Boolean()),
  javascriptEnabled: Type.Optional(Type.Boolean()),
});

export const WalletData = Type.Object({
  walletType: Type.Optional(Type.String({ maxLength: 50 })),
  authenticationValue: Type.Optional(Type.String({ maxLength: 256 })),
  xid: Type.Optional(Type.String({ maxLength: 256 })),
  eci: Type.Optional(Type.String({ maxLength: 4 })),
});

/** The payer as a payment records it: name and e-mail always; the wallet leaves the rest to the payer. */
const SubmittedPayerFields = {
  name: PayerFields.name,
  email: PayerFields.email,
  ...optionalProperties({
    phoneNumber: PayerFields.phoneNumber,
    address: PayerFields.address,
    city: PayerFields.city,
    state: PayerFields.state,
    postalCode: PayerFields.postalCode,
    country: PayerFields.country,
  }),
};
export const SubmittedPayer = Type.Object(SubmittedPayerFields);
export type SubmittedPayer = Static<typeof SubmittedPayer>;

const Common = {
  is3ds: Type.Optional(Type.Boolean({ description: 'Force a 3-D Secure challenge' })),
  isSandbox: Type.Optional(
    Type.Boolean({ description: 'The API key decides the mode; true with a live key is rejected' }),
  ),
  ipAddress: Type.Optional(
    nullable(
      Type.String({
        maxLength: 64,
        description:
          "The payer's IP address, default: the connection's. API key only: refused with a checkout session token (400 INVALID_FORMAT), whose payments record the connection's",
      }),
    ),
  ),
};

const Notification = {
  referenceId: Type.Optional(
    nullable(
      Type.String({
        maxLength: 100,
        description: 'Your reference. API key only: refused with a checkout session token (400 INVALID_FORMAT)',
      }),
    ),
  ),
  notifyUrl: Type.Optional(
    url(`Where this payment's notifications are sent, else the settings' notifyUrl. ${MERCHANT_ONLY}`),
  ),
  successUrl: Type.Optional(returnUrl("Where the payer's browser goes after success")),
  failureUrl: Type.Optional(returnUrl("Where the payer's browser goes after failure")),
  originDomain: Type.Optional(url('Origin of the page that embeds the checkout')),
};

const Amount = {
  amount: Type.Number({ minimum: 0, description: 'Must equal the payment request amount (major units)' }),
  unit: Type.String({
    minLength: 1,
    maxLength: 20,
    description: 'Currency code; must equal the payment request currency',
  }),
};

const Capture = {
  captureDelayHours: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 7,
      description: `0 = capture now; 1-7 = authorize now, capture later. ${MERCHANT_ONLY}`,
    }),
  ),
};

const object = <P extends TProperties>(properties: P, description: string, title?: string): TObject<P> =>
  Type.Object(properties, { description, ...(title ? { title } : {}) });

export const H2hCardBody = object(
  {
    ...PayerFields,
    ...Card,
    ...Amount,
    ...Capture,
    browserInfo: Type.Optional(BrowserInfo),
    wallet: Type.Optional(WalletData),
    ...Common,
    ...Notification,
  },
  'Host-to-host card',
  'H2hCardPayment',
);
export const H2hTokenBody = object(
  {
    ...PayerFields,
    token: Type.String({ minLength: 1, maxLength: 255, description: 'cardToken of an earlier approved payment' }),
    ...Amount,
    browserInfo: Type.Optional(BrowserInfo),
    ...Common,
    ...Notification,
  },
  'Host-to-host stored token',
  'H2hTokenPayment',
);
const UpiId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "The payer's UPI id, username@bankcode. Needed for a collect; an intent may leave it out",
});
const UpiCommon = { ...PayerFields, ...Amount, ...Common, ...Notification };
/**
 * The UPI variant as /openapi.json shows it (one of the spec's three h2h variants): a collect by
 * default; `upiFlow: "intent"` answers a `upi://pay` link instead. The intent is validated by
 * H2hUpiIntentBody, which needs no upiId (decisions.md "UPI intent").
 */
export const H2hUpiBody = object(
  {
    upiId: UpiId,
    upiFlow: Type.Optional(
      Type.Union([Type.Literal('collect'), Type.Literal('intent')], {
        description:
          "collect (default): a collect request to upiId, approved in the payer's UPI app. intent: answered " +
          'with upiIntentUrl, a upi://pay link to show as a QR code or open in a UPI app (upiId not needed)',
      }),
    ),
    ...UpiCommon,
  },
  'Host-to-host UPI: a collect request to upiId, or with upiFlow "intent" a upi://pay link (no upiId needed)',
  'H2hUpiPayment',
);
export const H2hUpiIntentBody = object(
  { upiFlow: Type.Literal('intent'), upiId: Type.Optional(UpiId), ...UpiCommon },
  'Host-to-host UPI intent',
  'H2hUpiIntentPayment',
);
export const ProcessorCardBody = object(
  {
    ...PayerFields,
    ...Card,
    ...Capture,
    browserInfo: Type.Optional(BrowserInfo),
    wallet: Type.Optional(WalletData),
    ...Common,
  },
  'Card per processor (no amount, unit or referenceId: the payment request decides)',
  'CardPaymentBody',
);

/** decisions.md "Wallet payments": `googlepay` / `applepay`, or their one-letter forms. */
export const WalletType = Type.Union([
  Type.Literal('googlepay'),
  Type.Literal('applepay'),
  Type.Literal('G'),
  Type.Literal('A'),
]);

export const WalletBody = object(
  {
    ...SubmittedPayerFields,
    token: Type.String({ minLength: 1, maxLength: 4096, description: "The wallet's payment token" }),
    wallet: Type.Object({ ...WalletData.properties, walletType: WalletType }),
    ...Capture,
    browserInfo: Type.Optional(BrowserInfo),
    ...Common,
    ...Notification,
  },
  'Wallet (Google Pay, Apple Pay): name, email, token and wallet.walletType required',
);
export type WalletPayment = Static<typeof WalletBody>;

/**
 * The h2h body: one of the spec's three variants, chosen by number / token / upiId, or a UPI intent
 * (upiFlow "intent", upiId optional), which the UPI variant alone would show as needing a upiId.
 * Which one a body is, `h2hVariantOf` picks; that variant's schema alone then validates it.
 */
export const H2hBody = Type.Union([H2hCardBody, H2hTokenBody, H2hUpiBody, H2hUpiIntentBody]);

/**
 * The variant an h2h body claims, by which of number / token / upiId it has (decisions.md; `upiFlow`
 * alone also means UPI, and `upiFlow: "intent"` picks the intent). Only the chosen variant's schema
 * validates the body, so every missing field of that variant is reported at once. Exactly one must be
 * claimed. It only selects: what a variant may do is the handler's business.
 */
export function h2hVariantOf(body: Record<string, unknown>): TObject {
  const claimed = [
    body.number !== undefined && 'number',
    body.token !== undefined && 'token',
    (body.upiId !== undefined || body.upiFlow !== undefined) && 'upiId',
  ].filter((field) => field !== false);
  if (claimed.length !== 1) {
    throw new AppError('VALIDATION_ERROR', 'Send exactly one of number (card), token (stored card) or upiId (UPI)', {
      details: {
        missingFields: claimed.length === 0 ? ['number | token | upiId'] : [],
        conflictingFields: claimed,
      },
    });
  }
  if (claimed[0] === 'number') return H2hCardBody;
  if (claimed[0] === 'token') return H2hTokenBody;
  return body.upiFlow === 'intent' ? H2hUpiIntentBody : H2hUpiBody;
}

export type H2hCard = Static<typeof H2hCardBody>;
export type ProcessorCard = Static<typeof ProcessorCardBody>;

/**
 * What a payment records of its submission's options (merchant-options.ts): the body's fields, null
 * where the body left them out (the payment request's apply), the payer's address, and where the
 * submission came from (a 3-D Secure payer returns there: challenge-return.ts).
 */
export const PaymentOptions = Type.Object({
  ...Type.Required(Type.Pick(H2hCardBody, ['referenceId', 'notifyUrl', 'successUrl', 'failureUrl', 'originDomain']))
    .properties,
  browserInfo: nullable(BrowserInfo),
  ipAddress: Type.String(),
  startedFrom: Type.Union([Type.Literal('checkout'), Type.Literal('api')]),
  // A UPI payment's: its flow, the payer's UPI id, and how long the payer has (upiExpiresAt).
  upiFlow: Type.Optional(H2hUpiBody.properties.upiFlow),
  upiId: Type.Optional(nullable(UpiId)),
  upiTtlSeconds: Type.Optional(Type.Integer()),
  // A wallet payment's wallet.
  walletType: Type.Optional(Type.Union([Type.Literal('googlepay'), Type.Literal('applepay')])),
});
export type PaymentOptions = Static<typeof PaymentOptions>;

export const PaymentIdParams = Type.Object({ paymentId: Id('Payment id') });
export const RequestIdParams = Type.Object({ id: Id('Payment request id') });

const PAYMENT_STATUSES = ['pending', 'requires_action', 'authorized', 'succeeded', 'failed', 'canceled'] as const;

export const Payment = Type.Object(
  {
    paymentId: Type.Integer(),
    transactionId: Type.Union([Type.String(), Type.Null()], { description: 'The processor’s id for this payment' }),
    paymentRequestId: Type.Integer(),
    status: Type.Union(PAYMENT_STATUSES.map((s) => Type.Literal(s))),
    challengeRequired: Type.Boolean(),
    redirectUrl: Type.Union([Type.String(), Type.Null()], {
      description: "3-D Secure challenge page, or a UPI intent's payer page (sandbox), to send the payer to",
    }),
    upiIntentUrl: Type.Union([Type.String(), Type.Null()], {
      description:
        'A UPI intent waiting for the payer: the upi://pay link (payee, amount, currency, reference) to show as a QR code or open in a UPI app',
    }),
    upiExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'A UPI payment waiting for the payer: when it lapses (UPI_COLLECT_TTL_SECONDS after it began)',
    }),
    amount: Type.Number(),
    currency: Type.String(),
    amountCaptured: Type.Number(),
    amountRefunded: Type.Number(),
    refundStatus: Type.Union([Type.Literal('none'), Type.Literal('partially_refunded'), Type.Literal('refunded')], {
      description:
        'Of the captured amount: nothing refunded, a part, or all of it (amountRefunded: refunds succeeded or still pending)',
    }),
    processor: Type.String(),
    ...PaidWith,
    card: Type.Union([
      Type.Object({ brand: Type.String(), bin: Type.String(), last4: Type.String(), expiration: Type.String() }),
      Type.Null(),
    ]),
    cardToken: Type.Union([Type.String(), Type.Null()], {
      description: 'Reusable token for the h2h token variant (approved card payments)',
    }),
    captureDelayHours: Type.Integer(),
    captureAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    declineCode: Type.Union([Type.String(), Type.Null()]),
    declineReason: Type.Union([Type.String(), Type.Null()]),
    failure: PaymentFailure,
    threeDs: Type.Union(
      [
        Type.Object({
          result: Type.String({ description: '3-D Secure result: Y, N, A, U or R' }),
          eci: Type.Union([Type.String(), Type.Null()], { description: 'Electronic Commerce Indicator' }),
        }),
        Type.Null(),
      ],
      { description: 'The 3-D Secure outcome (the authentication value is kept, never shown)' },
    ),
    livemode: Type.Boolean(),
    createDate: Type.String({ format: 'date-time' }),
  },
  { title: 'Payment' },
);
export type PaymentView = Static<typeof Payment>;

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'Major units; default: everything not yet refunded' }),
    ),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { title: 'RefundBody' },
);

export const Refund = Type.Object(
  {
    refundId: Type.Integer(),
    paymentId: Type.Integer(),
    amount: Type.Number(),
    currency: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description:
        'pending: the processor has not decided yet, or has not answered (the amount stays reserved and the gateway asks again every 60 s); a refund.succeeded or refund.failed event follows',
    }),
    reason: Type.Union([Type.String(), Type.Null()]),
    createDate: Type.String({ format: 'date-time' }),
  },
  { title: 'Refund' },
);

export const PaymentList = Page(Payment);

/**
 * Four digits match one card in ten thousand, with no index of their own (docs/decisions.md "Payment
 * search"): alone, they are searched within this many days.
 */
export const CARD_LAST4_WINDOW_DAYS = 31;

/** The filters of the list and of its CSV export. */
const PaymentFilters = {
  paymentRequestId: Type.Optional(Id('Only the attempts of this payment request')),
  status: Type.Optional(Type.Union(PAYMENT_STATUSES.map((s) => Type.Literal(s)))),
  createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (inclusive)' })),
  createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before (inclusive)' })),
  reference: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Exact reference of the payment's request" }),
  ),
  customerId: Type.Optional(Id("Customer of the payment's request")),
  payerEmail: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The payer's e-mail address, exactly but in any case (indexed)",
    }),
  ),
  cardLast4: Type.Optional(
    Type.String({
      pattern: '^[0-9]{4}$',
      description:
        `The last 4 digits of the card. Needs another narrowing filter (payerEmail, reference, customerId, ` +
        `paymentRequestId) or createdFrom at most ${CARD_LAST4_WINDOW_DAYS} days before createdTo (default: now); ` +
        'else 400 VALIDATION_ERROR',
    }),
  ),
  ...AmountRangeQuery,
};
export const PaymentListQuery = Type.Object({ ...PageQuery, ...PaymentFilters });
export type PaymentListQuery = Static<typeof PaymentListQuery>;
export const PaymentExportQuery = Type.Object(PaymentFilters);
export type PaymentExportQuery = Static<typeof PaymentExportQuery>;
