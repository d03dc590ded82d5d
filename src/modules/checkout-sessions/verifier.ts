import type { CheckoutActor, CheckoutTokenVerifier } from '../../http/actors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { findUnexpiredSession } from './repository.js';
import { hashCheckoutToken, isWellFormedCheckoutToken } from './tokens.js';

/**
 * Turns an X-Checkout-Token into the actor it stands for, or null when the token is malformed,
 * unknown or expired (the credential check answers 401). One indexed read, never cached,
 * so expiry is exact to the clock on every instance.
 */
export function checkoutTokenVerifier(deps: { db: Db; clock: Clock }): CheckoutTokenVerifier {
  return {
    async verify(token: string): Promise<CheckoutActor | null> {
      if (!isWellFormedCheckoutToken(token)) return null;
      const session = await findUnexpiredSession(deps.db, hashCheckoutToken(token), deps.clock.now());
      if (!session) return null;
      return {
        kind: 'checkout',
        merchantId: session.merchant_id,
        merchantStatus: session.merchant_status,
        merchantName: session.merchant_name,
        mode: session.livemode ? 'live' : 'test',
        paymentRequestId: session.payment_request_id,
        sessionId: session.id,
      };
    },
  };
}
