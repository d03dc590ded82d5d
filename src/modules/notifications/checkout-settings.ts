import type { DbContext } from '../../storage/db-context.js';
import { findCheckoutSettings, findRetryDeclineCodes, type MerchantScope } from './repository.js';

export interface CheckoutSettings {
  /** Origins allowed to frame the hosted checkout (CSP frame-ancestors), besides the gateway-wide ones. */
  checkoutOrigins: string[];
  /** The checkout offers wallet payments. */
  walletEnabled: boolean;
  /** The name payers see (settings "Business name"); null: none given. */
  businessName: string | null;
}

/**
 * What the hosted checkout of one payment request needs of its merchant's settings (the request's own
 * mode). A merchant who never saved settings has none of them; an unknown request gets the same.
 */
export async function checkoutSettingsOf(
  ctx: Pick<DbContext, 'db'>,
  input: { paymentRequestId: number },
): Promise<CheckoutSettings> {
  if (!Number.isSafeInteger(input.paymentRequestId) || input.paymentRequestId <= 0)
    return { checkoutOrigins: [], walletEnabled: false, businessName: null };
  const row = await findCheckoutSettings(ctx.db, input.paymentRequestId);
  return {
    checkoutOrigins: row?.checkout_origins ?? [],
    walletEnabled: row?.wallet_enabled ?? false,
    businessName: row?.business_name ?? null,
  };
}

/** The decline codes the merchant retries on the next processor connection of a path (settings). */
export const retryDeclineCodesOf = (ctx: Pick<DbContext, 'db'>, scope: MerchantScope): Promise<string[]> =>
  findRetryDeclineCodes(ctx.db, scope);
