import { type DbContext, inTransaction } from '../../storage/db-context.js';
import { AppError } from '../../errors.js';
import { markKeyExposed, verifyApiKey } from '../api-keys/index.js';
import { reportDeprecatedUse, reportExposedKey } from '../notifications/index.js';
import { mintCheckoutSession } from './mint-checkout-session.js';

/**
 * The deprecated `{CHECKOUT_URL}/main?requestId=…&apiKey=…` (spec, Versioning): the gateway exchanges
 * the key server-side for a checkout session token bound to the request, so the page itself still only
 * ever holds a token. A key in a browser's address bar is a leaked credential: it is flagged as exposed
 * (api_keys.exposed_at, shown by the control panel) and reported (`api_key.exposed` and
 * `api.version.deprecated` events and e-mail notices, once a day), whatever becomes of the exchange.
 */
export async function exchangeLegacyApiKey(ctx: DbContext, input: { apiKey: string; paymentRequestId: number }) {
  const key = await verifyApiKey(ctx, { key: input.apiKey });
  if (!key) throw new AppError('INVALID_API_KEY', 'The API key is invalid or has been revoked');
  const scope = { merchantId: key.merchantId, livemode: key.mode === 'live' };
  await inTransaction(ctx, async (trx) => {
    await markKeyExposed(trx.db, key.keyId, ctx.clock.now());
    await reportExposedKey(trx, {
      scope,
      keyId: key.keyId,
      where: 'the address of a checkout page (apiKey parameter)',
    });
    await reportDeprecatedUse(trx, { scope, feature: 'checkout-api-key-parameter' });
  });
  return mintCheckoutSession(ctx, { scope, paymentRequestId: input.paymentRequestId });
}
