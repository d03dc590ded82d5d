import type { DbContext } from '../../storage/db-context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { merchantScopeOf, requireMerchant } from '../../http/credentials.js';
import { readAnyContentTypeAsJson } from '../../http/json-body.js';
import { withExample } from '../../http/openapi-components.js';
import { CHECKOUT_SESSION_EXAMPLE } from './examples.js';
import { mintCheckoutSession } from './mint-checkout-session.js';
import { CheckoutSession, CheckoutSessionParams, MintCheckoutSessionBody } from './schemas.js';

export function checkoutSessionRoutes(app: App, ctx: DbContext): void {
  // Its own scope: the mint's body carries nothing, so whatever a merchant's first curl sends (no body,
  // `-d '{}'` as a form, text/plain) is read as JSON here; every other route keeps its 415.
  app.register(async (scope) => {
    readAnyContentTypeAsJson(scope);
    (scope as App).post(
      '/payment-requests/:paymentRequestId/checkout-session',
      {
        schema: {
          operationId: 'createCheckoutSession',
          summary: 'Mint a checkout session token for the hosted checkout (API key only; valid 15 minutes)',
          description:
            'The body is an empty JSON object, or nothing; it is read as JSON whatever its content type, ' +
            "so `curl -d '{}'` without a Content-Type works too.",
          tags: ['Payment requests'],
          params: CheckoutSessionParams,
          body: withExample(MintCheckoutSessionBody, {}),
          response: { 200: withExample(CheckoutSession, CHECKOUT_SESSION_EXAMPLE) },
        },
        // No checkoutToken policy: a token can never mint another token (403).
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
  });
}
