import type { DbContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { markKeyExposed, verifyApiKey } from '../api-keys/index.js';
import { mintCheckoutSession } from './mint-checkout-session.js';

/**
 * The deprecated `{CHECKOUT_URL}/main?requestId=…&apiKey=…` (spec, Versioning): the gateway exchanges
 * the key server-side for a checkout session token bound to the request, so the page itself still only
 * ever holds a token. A key in a browser's address bar is a leaked credential: it is flagged as exposed
 * (api_keys.exposed_at, shown by the control panel).
 */
export async function exchangeLegacyApiKey(ctx: DbContext, input: { apiKey: string; paymentRequestId: number }) {
  const key = await verifyApiKey(ctx, { key: input.apiKey });
  if (!key) throw new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
  await markKeyExposed(ctx.db, key.keyId, ctx.clock.now());
  // Seam for the notifications work: the api_key.exposed event (events/catalog.ts) is emitted here.
  return mintCheckoutSession(ctx, {
    scope: { merchantId: key.merchantId, livemode: key.mode === 'live' },
    paymentRequestId: input.paymentRequestId,
  });
}
