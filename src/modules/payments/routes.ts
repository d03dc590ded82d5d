import type { FastifyRequest } from 'fastify';
import type { ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import type { PaymentsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { auditEntryOf } from '../audit/index.js';
import { merchantScopeOf as scopeOf, requireMerchant } from '../../http/credentials.js';
import { recoveredObjectId } from '../../http/idempotency.js';
import { validatorCompiler } from '../../http/validation.js';
import { CSV_DESCRIPTION, CsvResponse, sendCsv } from '../../lib/csv.js';
import { fromMinor } from '../../lib/money.js';
import { CARD_PROCESSORS, type CardProcessorName } from '../../processors/registry.js';
import { cancelPayment, capturePayment } from './capture.js';
import { refundPayment } from './refund.js';
import { challengeReturnRoutes } from './return-routes.js';
import { exportPayments, listPaymentPage } from './list-payments.js';
import { findCard, findPayment } from './repository.js';
import {
  H2hBody,
  H2hCardBody,
  H2hTokenBody,
  H2hUpiBody,
  H2hUpiIntentBody,
  Payment,
  PaymentIdParams,
  PaymentList,
  PaymentExportQuery,
  PaymentListQuery,
  ProcessorCardBody,
  Refund,
  RefundBody,
  RequestIdParams,
  WalletBody,
  type H2hCard,
  type H2hToken,
} from './schemas.js';
import { submitCardPayment } from './submit-card-payment.js';
import { submitUpiPayment } from './submit-upi-payment.js';
import { submitWalletPayment } from './submit-wallet-payment.js';
import type { CardPaymentInput, CardPaymentResult } from './types.js';
import { paymentError } from '../payment-failures.js';
import { paymentView } from './view.js';
import { submissionOptions, type SubmittedOptions } from './merchant-options.js';

const TAGS = ['Payments'];
const SUBMISSION = { auth: 'api_key' as const, paymentSubmission: true };
const SANDBOX_CONTROLS = ['x-sandbox-callback', 'x-sandbox-hang-ms'];

export function paymentRoutes(app: App, ctx: PaymentsContext): void {
  app.post(
    '/payments/h2h/:id',
    {
      schema: {
        summary: 'Pay a payment request host-to-host: card, stored token or UPI (exactly one of number, token, upiId)',
        tags: TAGS,
        params: RequestIdParams,
        body: H2hBody,
        response: { 200: Payment },
      },
      validatorCompiler: ({ schema, httpPart }) =>
        httpPart === 'body' ? h2hValidator : validatorCompiler({ schema, httpPart }),
      config: SUBMISSION,
    },
    async (request) => {
      const body = request.body;
      if ('upiId' in body || 'upiFlow' in body) {
        // The validator chose the UPI variant: a collect (upiId given) or an intent (upiId optional).
        const payment = await submitUpiPayment(ctx, {
          ...submissionInput(request, body),
          ...(body.upiFlow === 'intent'
            ? { upiFlow: 'intent', upiId: body.upiId }
            : { upiFlow: 'collect', upiId: body.upiId }),
          expected: { amount: body.amount, unit: body.unit },
        });
        return respond({ payment, card: undefined, cardToken: null });
      }
      const source: CardPaymentInput['source'] =
        'number' in body && body.number !== undefined
          ? { kind: 'card', number: body.number, expiration: body.expiration, cvv: body.cvv, holder: body.name }
          : { kind: 'token', token: (body as H2hToken).token };
      return respond(
        await submitCardPayment(ctx, {
          ...submissionInput(request, body),
          processor: undefined,
          failover: true,
          source,
          expected: { amount: body.amount, unit: body.unit },
        }),
      );
    },
  );

  for (const processor of Object.keys(CARD_PROCESSORS) as CardProcessorName[]) {
    app.post(
      `/payments/creditCard/${processor}/:id`,
      {
        schema: {
          summary: `Pay a payment request by card through ${processor} (${CARD_PROCESSORS[processor]})`,
          tags: TAGS,
          params: RequestIdParams,
          body: ProcessorCardBody,
          response: { 200: Payment },
        },
        config: SUBMISSION,
      },
      async (request) => {
        const body = request.body;
        return respond(
          await submitCardPayment(ctx, {
            ...submissionInput(request, body),
            processor,
            failover: false,
            source: {
              kind: 'card',
              number: body.number,
              expiration: body.expiration,
              cvv: body.cvv,
              holder: body.name,
            },
          }),
        );
      },
    );
  }

  app.post(
    '/payments/wallet/:id',
    {
      schema: {
        summary: 'Pay a payment request with a wallet (Google Pay, Apple Pay) payment token',
        tags: TAGS,
        params: RequestIdParams,
        body: WalletBody,
        response: { 200: Payment },
      },
      config: SUBMISSION,
    },
    async (request) => {
      const body = request.body;
      const payment = await submitWalletPayment(ctx, {
        ...submissionInput(request, body),
        token: body.token,
        walletType: WALLET_TYPES[body.wallet.walletType],
      });
      return respond({ payment, card: undefined, cardToken: null });
    },
  );

  challengeReturnRoutes(app, ctx);

  app.get(
    '/payments/:paymentId',
    {
      schema: { summary: 'Read a payment', tags: TAGS, params: PaymentIdParams, response: { 200: Payment } },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = scopeOf(request);
      const payment = await findPayment(ctx.db, scope, request.params.paymentId);
      if (!payment) throw new AppError('NOT_FOUND', 'payment not found');
      return paymentView(payment, await findCard(ctx.db, payment.card_id));
    },
  );

  app.get(
    '/payments',
    {
      schema: {
        summary: 'List payments (every attempt), newest first; filter by payment request, status, date, amount…',
        tags: TAGS,
        querystring: PaymentListQuery,
        response: { 200: PaymentList },
      },
      config: { auth: 'api_key' },
    },
    async (request) => listPaymentPage(ctx, { scope: scopeOf(request), query: request.query }),
  );

  app.get(
    '/payments/export/csv',
    {
      schema: {
        summary: 'Export the filtered list of payments as CSV, newest first',
        description: CSV_DESCRIPTION,
        tags: TAGS,
        querystring: PaymentExportQuery,
        response: { 200: CsvResponse },
      },
      config: { auth: 'api_key' },
    },
    async (request, reply) => {
      const csv = exportPayments(ctx, { scope: scopeOf(request), query: request.query });
      return sendCsv(reply, 'payments', ctx.clock.now(), csv);
    },
  );

  const followUp = (path: string, summary: string, action: typeof capturePayment) =>
    app.post(
      path,
      {
        schema: { summary, tags: TAGS, params: PaymentIdParams, response: { 200: Payment } },
        config: { auth: 'api_key', paymentSubmission: true },
      },
      async (request) => {
        const payment = await action(ctx, { scope: scopeOf(request), paymentId: request.params.paymentId });
        return paymentView(payment, await findCard(ctx.db, payment.card_id));
      },
    );
  followUp(
    '/payments/:paymentId/capture',
    'Capture an authorized payment now (instead of at its scheduled time)',
    capturePayment,
  );
  followUp('/payments/:paymentId/cancel', 'Void an authorized payment', cancelPayment);

  app.post(
    '/payments/:paymentId/refunds',
    {
      schema: {
        summary: 'Refund a captured payment, fully or partly',
        tags: TAGS,
        params: PaymentIdParams,
        body: RefundBody,
        response: { 200: Refund },
      },
      config: { auth: 'api_key', paymentSubmission: true },
    },
    async (request) => {
      const claim = request.idempotencyClaim;
      const refund = await refundPayment(ctx, {
        ...request.body,
        scope: scopeOf(request),
        paymentId: request.params.paymentId,
        testHeaders: sandboxControls(request),
        recoveryPoint: claim && { ...claim, resumeRefundId: recoveredObjectId(claim) },
        audit: auditEntryOf(request, 'payment.refunded'),
      });
      return {
        refundId: refund.id,
        paymentId: refund.payment_id,
        amount: fromMinor(refund.amount, refund.currency),
        currency: refund.currency,
        status: refund.status,
        reason: refund.reason,
        createDate: refund.created_at.toISOString(),
      };
    },
  );
}

/** The one-letter wallet types are the same wallets. */
const WALLET_TYPES = { googlepay: 'googlepay', G: 'googlepay', applepay: 'applepay', A: 'applepay' } as const;

type PayerFields = Pick<H2hCard, 'name' | 'email'> &
  Partial<
    Pick<H2hCard, 'phoneNumber' | 'address' | 'city' | 'state' | 'postalCode' | 'country' | 'is3ds' | 'isSandbox'>
  > &
  SubmittedOptions;

/** The sandbox test-control headers of a test-mode call, forwarded to the processor. */
function sandboxControls(request: FastifyRequest): Record<string, string> {
  const testHeaders: Record<string, string> = {};
  if (requireMerchant(request).mode === 'test') {
    for (const name of SANDBOX_CONTROLS) {
      const value = request.headers[name];
      if (typeof value === 'string') testHeaders[name] = value;
    }
  }
  return testHeaders;
}

/** What every submission path shares: caller, payer, options, sandbox test controls. */
function submissionInput(request: FastifyRequest, body: PayerFields) {
  const merchant = requireMerchant(request);
  const params = request.params as { id: number };
  const { options, captureDelayHours } = submissionOptions({
    caller: merchant.kind === 'checkout' ? 'checkout' : 'api',
    mode: merchant.mode,
    body,
    connectionIp: request.ip,
  });
  const testHeaders = sandboxControls(request);
  const claim = request.idempotencyClaim;
  return {
    merchantId: merchant.merchantId,
    mode: merchant.mode,
    paymentRequestId: params.id,
    payer: {
      name: body.name,
      email: body.email,
      phoneNumber: body.phoneNumber,
      address: body.address,
      city: body.city,
      state: body.state,
      postalCode: body.postalCode,
      country: body.country,
    },
    is3ds: body.is3ds ?? false,
    isSandbox: body.isSandbox,
    options,
    captureDelayHours,
    testHeaders,
    recoveryPoint: claim && {
      key: claim.key,
      token: claim.token,
      resume: claim.recovery && 'paymentId' in claim.recovery ? claim.recovery : undefined,
    },
  };
}

/** A declined or failed attempt is stored and readable, and answered as an error that names it. */
function respond(result: CardPaymentResult) {
  const { payment, card, cardToken } = result;
  const error = paymentError(payment);
  if (error) throw error;
  return paymentView(payment, card, cardToken);
}

/**
 * The h2h body is one of three variants, chosen by which of number / token / upiId is present
 * (decisions.md; `upiFlow` alone also means UPI, and `upiFlow: "intent"` picks the intent schema);
 * the chosen variant's schema then validates the whole body, so every missing field of that variant
 * is reported at once. It only selects and validates: what a variant may do is the handler's business.
 */
const compile = (schema: TSchema) => validatorCompiler({ schema, httpPart: 'body' });
const [card, token, upiCollect, upiIntent] = [H2hCardBody, H2hTokenBody, H2hUpiBody, H2hUpiIntentBody].map(compile);
const VARIANTS: Array<{
  field: string;
  present: (data: Body) => boolean;
  validator: (data: Body) => ValidateFunction;
}> = [
  { field: 'number', present: (data) => data.number !== undefined, validator: () => card },
  { field: 'token', present: (data) => data.token !== undefined, validator: () => token },
  {
    field: 'upiId',
    present: (data) => data.upiId !== undefined || data.upiFlow !== undefined,
    validator: (data) => (data.upiFlow === 'intent' ? upiIntent : upiCollect),
  },
];
type Body = Record<string, unknown>;

const h2hValidator = Object.assign(
  (data: unknown) => {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      h2hValidator.errors = [
        { keyword: 'type', instancePath: '', schemaPath: '#', params: { type: 'object' }, message: 'must be object' },
      ];
      return false;
    }
    const present = VARIANTS.filter((variant) => variant.present(data as Body));
    if (present.length !== 1) {
      return {
        error: new AppError(
          'VALIDATION_ERROR',
          'Send exactly one of number (card), token (stored card) or upiId (UPI)',
          {
            details: {
              missingFields: present.length === 0 ? ['number | token | upiId'] : [],
              conflictingFields: present.map((variant) => variant.field),
            },
          },
        ),
      };
    }
    const validate = present[0].validator(data as Body);
    const ok = validate(data);
    h2hValidator.errors = validate.errors;
    return ok;
  },
  { errors: null as ValidateFunction['errors'] },
);
