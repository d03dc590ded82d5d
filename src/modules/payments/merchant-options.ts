import { invalidFormat } from '../../errors.js';
import { checkReturnUrl } from '../../lib/return-url.js';
import type { KeyMode } from '../api-keys/index.js';
import type { H2hCard, PaymentOptions } from './schemas.js';

/**
 * The submission fields that are the merchant's, not the payer's: where the merchant's signed
 * notifications go, where the payer's browser is sent, whether the sale is only authorized, the
 * merchant's reference and the payer's address it vouches for. A checkout session token is the
 * payer's credential, so it may send none of them (docs/decisions.md "Merchant options of a payment").
 */
export const MERCHANT_FIELDS = [
  'notifyUrl',
  'successUrl',
  'failureUrl',
  'captureDelayHours',
  'referenceId',
  'ipAddress',
] as const;

/** The option fields of a submission body (the per-processor card body has no referenceId). */
export type SubmittedOptions = Partial<
  Pick<H2hCard, (typeof MERCHANT_FIELDS)[number] | 'originDomain' | 'browserInfo'>
>;

/**
 * What a payment records of its submission's options. The merchant's fields come from the body only
 * when the merchant's own server sent it; what the body leaves out (null) the payment request fills in
 * when the payment begins (payments/begin-statement.ts), then the merchant's settings (notifyUrl, at
 * delivery). With a checkout token any of them is refused, before anything is stored, and the payer's
 * address is the connection's (`request.ip`, which believes X-Forwarded-For from TRUSTED_PROXIES only).
 */
export function submissionOptions(input: {
  caller: 'checkout' | 'api';
  mode: KeyMode;
  body: SubmittedOptions;
  connectionIp: string;
}): { options: PaymentOptions; captureDelayHours: number | null } {
  const { caller, body } = input;
  const shared = {
    originDomain: body.originDomain ?? null,
    browserInfo: body.browserInfo ?? null,
    // Where a 3-D Secure payer comes back to: the hosted checkout, or the merchant's URLs (challenge-return.ts).
    startedFrom: caller,
  };
  if (caller === 'checkout') {
    const sent = MERCHANT_FIELDS.filter((field) => body[field] !== undefined);
    if (sent.length > 0)
      throw invalidFormat(
        sent[0],
        body[sent[0]],
        `${sent.join(', ')} cannot be sent with a checkout session token: ${sent.length > 1 ? 'they are' : 'it is'} ` +
          "the merchant's to set, on the payment request (POST /payment-requests) or with an API key",
      );
    const none = { referenceId: null, notifyUrl: null, successUrl: null, failureUrl: null };
    return { options: { ...none, ...shared, ipAddress: input.connectionIp }, captureDelayHours: null };
  }
  checkReturnUrl('successUrl', body.successUrl, input.mode === 'live');
  checkReturnUrl('failureUrl', body.failureUrl, input.mode === 'live');
  return {
    options: {
      referenceId: body.referenceId ?? null,
      notifyUrl: body.notifyUrl ?? null,
      successUrl: body.successUrl ?? null,
      failureUrl: body.failureUrl ?? null,
      ...shared,
      ipAddress: body.ipAddress ?? input.connectionIp,
    },
    captureDelayHours: body.captureDelayHours ?? null,
  };
}
