import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/fastify-app.js';
import type { PaymentsContext } from './context.js';
import { requireMerchant } from '../../http/credentials.js';
import { withExample } from '../../http/openapi-components.js';
import { H2H_CARD_EXAMPLE, PAYMENT_EXAMPLE } from './examples.js';
import { validateBodyAs } from '../../http/validation.js';
import { CARD_PROCESSORS, type CardProcessorName } from '../../processors/registry.js';
import { paymentError } from '../payment-failures.js';
import { submissionOptions, type SubmittedOptions } from './merchant-options.js';
import { MOVES_MONEY, TAGS } from './route-config.js';
import { sandboxControls } from './sandbox-controls.js';
import {
  H2hBody,
  h2hVariantOf,
  Payment,
  ProcessorCardBody,
  RequestIdParams,
  WalletBody,
  type H2hCard,
  type SubmittedPayer,
} from './schemas.js';
import { submitCardPayment } from './submit-card-payment.js';
import { submitUpiPayment } from './submit-upi-payment.js';
import { submitWalletPayment } from './submit-wallet-payment.js';
import type { CardPaymentResult, CardSource } from './types.js';
import { paymentView } from './view.js';

/**
 * The submissions of a payment request: host to host (card, stored token or UPI), by card through a
 * named processor, and by wallet. The hosted checkout's session token may make them too, for the
 * payment request it is bound to (`:id`).
 */
export function submissionRoutes(app: App, ctx: PaymentsContext): void {
  app.post(
    '/payments/h2h/:id',
    {
      schema: {
        operationId: 'submitH2hPayment',
        summary: 'Pay a payment request host-to-host: card, stored token or UPI (exactly one of number, token, upiId)',
        tags: TAGS,
        params: RequestIdParams,
        body: withExample(H2hBody, H2H_CARD_EXAMPLE),
        response: { 200: withExample(Payment, PAYMENT_EXAMPLE) },
      },
      preValidation: validateBodyAs(h2hVariantOf),
      config: { ...MOVES_MONEY, checkoutToken: { boundParam: 'id' } },
    },
    async (request) => {
      const body = request.body;
      const common = submissionInput(request, request.params.id, body);
      const expected = { amount: body.amount, unit: body.unit };
      if ('upiId' in body || 'upiFlow' in body) {
        // h2hVariantOf chose the UPI variant: a collect (upiId given) or an intent (upiId optional).
        const flow =
          body.upiFlow === 'intent'
            ? { upiFlow: 'intent' as const, upiId: body.upiId }
            : { upiFlow: 'collect' as const, upiId: body.upiId };
        const payment = await submitUpiPayment(ctx, { ...common, ...flow, expected });
        return respond({ payment, card: undefined, cardToken: null });
      }
      const source: CardSource =
        'number' in body
          ? { kind: 'card', number: body.number, expiration: body.expiration, cvv: body.cvv, holder: body.name }
          : { kind: 'token', token: body.token };
      return respond(
        await submitCardPayment(ctx, { ...common, processor: undefined, failover: true, source, expected }),
      );
    },
  );

  for (const processor of Object.keys(CARD_PROCESSORS) as CardProcessorName[]) {
    app.post(
      `/payments/creditCard/${processor}/:id`,
      {
        schema: {
          operationId: `submit${processor[0].toUpperCase()}${processor.slice(1)}CardPayment`,
          summary: `Pay a payment request by card through ${processor} (${CARD_PROCESSORS[processor]})`,
          tags: TAGS,
          params: RequestIdParams,
          body: ProcessorCardBody,
          response: { 200: Payment },
        },
        config: { ...MOVES_MONEY, checkoutToken: { boundParam: 'id' } },
      },
      async (request) => {
        const body = request.body;
        return respond(
          await submitCardPayment(ctx, {
            ...submissionInput(request, request.params.id, body),
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
        operationId: 'submitWalletPayment',
        summary: 'Pay a payment request with a wallet (Google Pay, Apple Pay) payment token',
        tags: TAGS,
        params: RequestIdParams,
        body: WalletBody,
        response: { 200: Payment },
      },
      config: { ...MOVES_MONEY, checkoutToken: { boundParam: 'id' } },
    },
    async (request) => {
      const body = request.body;
      const payment = await submitWalletPayment(ctx, {
        ...submissionInput(request, request.params.id, body),
        token: body.token,
        walletType: WALLET_TYPES[body.wallet.walletType],
      });
      return respond({ payment, card: undefined, cardToken: null });
    },
  );
}

/** The one-letter wallet types are the same wallets. */
const WALLET_TYPES = { googlepay: 'googlepay', G: 'googlepay', applepay: 'applepay', A: 'applepay' } as const;

/** What every submission body carries: the payer, the 3-D Secure and sandbox flags, the merchant's options. */
type SubmissionBody = SubmittedPayer & Pick<H2hCard, 'is3ds' | 'isSandbox'> & SubmittedOptions;

/** What every submission path shares: caller, payer, options, sandbox test controls. */
function submissionInput(request: FastifyRequest, paymentRequestId: number, body: SubmissionBody) {
  const merchant = requireMerchant(request);
  const { options, captureDelayHours } = submissionOptions({
    caller: merchant.kind === 'checkout' ? 'checkout' : 'api',
    mode: merchant.mode,
    body,
    connectionIp: request.ip,
  });
  const claim = request.idempotencyClaim;
  return {
    merchantId: merchant.merchantId,
    mode: merchant.mode,
    paymentRequestId,
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
    testHeaders: sandboxControls(request),
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
