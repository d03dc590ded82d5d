import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';

/** What the payment-requests module needs: the store and the checkout's address. */
export interface PaymentRequestsContext extends DbContext {
  config: Config;
}
