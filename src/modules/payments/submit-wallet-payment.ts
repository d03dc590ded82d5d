import { beginAttemptWithoutCard } from './begin-attempt.js';
import { challengeReturnUrl } from './challenge-return.js';
import { refuseLiveMode } from './live-mode.js';
import { findPayment, type PaymentRow } from './repository.js';
import { settlePayment } from './settle.js';
import { toSettlement } from './settlement-of.js';
import type { PaymentContext, WalletPaymentInput } from './types.js';
import { checkNotifyUrl } from '../notifications/index.js';

export const WALLET_PROCESSOR = 'wallet';

/**
 * Wallet payments (Google Pay, Apple Pay): the wallet's payment token is authorized by the wallet
 * processor with the same order as cards (pending committed first, the payment id as the processor's
 * reference) and the same outcomes: approved (or authorized for a delayed capture), declined, or a
 * 3-D Secure challenge that continues on /callbacks/3ds.
 */
export async function submitWalletPayment(ctx: PaymentContext, input: WalletPaymentInput): Promise<PaymentRow> {
  refuseLiveMode(input, 'wallet processor');
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: input.options.notifyUrl });
  const scope = { merchantId: input.merchantId, livemode: false };

  const { payment, resumed } = await beginAttemptWithoutCard(ctx, {
    ...input,
    processor: WALLET_PROCESSOR,
    method: 'wallet',
    options: { ...input.options, walletType: input.walletType },
  });
  if (resumed) return payment;
  const outcome = await ctx.processors.get(WALLET_PROCESSOR)!.authorize({
    reference: `pay_${payment.id}`,
    amount: payment.amount,
    currency: payment.currency,
    capture: payment.capture_delay_hours === 0,
    wallet: { token: input.token, walletType: input.walletType },
    threeDS: {
      force: input.is3ds,
      returnUrl: challengeReturnUrl(ctx, payment.id),
      browserInfo: input.options.browserInfo ?? undefined,
    },
    testHeaders: input.testHeaders,
  });
  const settlement = toSettlement(outcome);
  const settled = settlement ? await settlePayment(ctx, { payment, settlement }) : undefined;
  return settled ?? (await findPayment(ctx.db, scope, payment.id))!;
}
