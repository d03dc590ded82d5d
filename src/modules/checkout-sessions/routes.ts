import type { App, AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { merchantScopeOf, requireMerchant } from '../../http/credentials.js';
import { mintCheckoutSession } from './mint-checkout-session.js';
import { CheckoutSession, CheckoutSessionParams, MintCheckoutSessionBody } from './schemas.js';

export function checkoutSessionRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/payment-requests/:paymentRequestId/checkout-session',
    {
      schema: {
        summary: 'Mint a checkout session token for the hosted checkout (API key only; valid 15 minutes)',
        tags: ['Payment requests'],
        params: CheckoutSessionParams,
        body: MintCheckoutSessionBody,
        response: { 200: CheckoutSession },
      },
      // Not on the checkout-token allow-list (http/route-policy.ts): a token can never mint another token (403).
      config: { auth: 'api_key' },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const actor = requireMerchant(request);
      // The credential check already refuses tokens here; this keeps it true if the route config changes.
      if (actor.kind === 'checkout')
        throw new AppError('FORBIDDEN', 'A checkout session token cannot mint another token');
      return mintCheckoutSession(ctx, {
        scope: merchantScopeOf(request),
        paymentRequestId: request.params.paymentRequestId,
      });
    },
  );
}
