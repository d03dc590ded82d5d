import type { DbContext } from '../../storage/db-context.js';
import { checkoutSettingsOf } from '../notifications/index.js';
import { lastPaymentOf } from './get-payment-request-status.js';
import type { MerchantScope } from './repository.js';

/**
 * What the hosted checkout reads beside the payment request (docs/decisions.md "Hosted checkout"):
 * whom the payer pays (X-Merchant-Name, percent-encoded: the settings' business name, absent when the
 * merchant gave none, so the page never shows a name the merchant did not choose for payers,
 * docs/decisions.md "The name on the checkout"), whether the merchant offers wallets
 * (X-Wallet-Enabled), and the latest attempt (X-Last-Payment-Id / -Status), which is how the page,
 * back from 3-D Secure, learns the outcome from the gateway rather than from its address bar.
 */
export async function checkoutHeaders(
  ctx: Pick<DbContext, 'db'>,
  input: { scope: MerchantScope; id: number },
): Promise<Record<string, string>> {
  const [settings, last] = await Promise.all([
    checkoutSettingsOf(ctx, { paymentRequestId: input.id }),
    lastPaymentOf(ctx, input),
  ]);
  return {
    ...(settings.businessName ? { 'X-Merchant-Name': encodeURIComponent(settings.businessName) } : {}),
    'X-Wallet-Enabled': String(settings.walletEnabled),
    ...(last ? { 'X-Last-Payment-Id': String(last.paymentId), 'X-Last-Payment-Status': last.status } : {}),
  };
}
