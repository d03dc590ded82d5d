import type { DbContext } from '../../storage/db-context.js';
import type { MerchantScope } from '../../lib/scope.js';
import { assertOpen, getPaymentRequest } from '../payment-requests/index.js';
import { insertCheckoutSession } from './repository.js';
import { CHECKOUT_TOKEN_TTL_SECONDS, generateCheckoutToken } from './tokens.js';

/**
 * Mints a token bound to one open payment request. The token is returned once and stored
 * only as a hash. Several live tokens per request are fine (a payer may reload the page);
 * whatever they are used for re-checks the request's status.
 */
export async function mintCheckoutSession(ctx: DbContext, input: { scope: MerchantScope; paymentRequestId: number }) {
  const { scope } = input;
  const request = await getPaymentRequest(ctx, { scope, id: input.paymentRequestId });
  const now = ctx.clock.now();
  assertOpen(request, now, 'get a checkout session token');

  const { token, hash } = generateCheckoutToken();
  const expiresAt = new Date(now.getTime() + CHECKOUT_TOKEN_TTL_SECONDS * 1000);
  await insertCheckoutSession(ctx.db, {
    merchant_id: scope.merchantId,
    livemode: scope.livemode,
    payment_request_id: request.id,
    token_hash: hash,
    expires_at: expiresAt,
    created_at: now,
  });
  return {
    token,
    paymentRequestId: request.id,
    expiresAt: expiresAt.toISOString(),
    ttlSeconds: CHECKOUT_TOKEN_TTL_SECONDS,
  };
}
