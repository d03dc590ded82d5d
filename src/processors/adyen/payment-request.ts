import adyen, { type Types } from '@adyen/api-library';
import type { AuthorizeInput } from '../types.js';

const { checkout } = adyen.Types;

export type PaymentRequest = Types.checkout.PaymentRequest;

/**
 * The `/payments` request for an authorization: the raw card fields (paymentMethod type scheme; the
 * API credential needs the raw card data permission), the gateway's reference, and the return URL
 * of the 3-D Secure redirect. Capture now is `captureDelayHours: 0`; authorize only is Adyen's
 * per-payment `manualCapture`, whatever the account's capture delay says.
 */
export function paymentRequestFor(input: AuthorizeInput, merchantAccount: string): PaymentRequest {
  const card = input.card;
  if (!card) throw new Error('Adyen takes card payments only');
  const browserInfo = browserInfoOf(input.threeDS.browserInfo);
  return {
    amount: { currency: input.currency, value: input.amount },
    merchantAccount,
    reference: input.reference,
    returnUrl: input.threeDS.returnUrl,
    paymentMethod: {
      type: checkout.CardDetails.TypeEnum.Scheme,
      number: card.number,
      expiryMonth: String(card.expMonth).padStart(2, '0'),
      expiryYear: String(card.expYear < 100 ? 2000 + card.expYear : card.expYear),
      ...(card.cvv ? { cvc: card.cvv } : {}),
      holderName: card.holder,
    },
    shopperInteraction: checkout.PaymentRequest.ShopperInteractionEnum.Ecommerce,
    channel: checkout.PaymentRequest.ChannelEnum.Web,
    ...(input.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
    ...(input.threeDS.force
      ? { authenticationData: { attemptAuthentication: checkout.AuthenticationData.AttemptAuthenticationEnum.Always } }
      : {}),
    ...(browserInfo ? { browserInfo } : {}),
  };
}

/**
 * Adyen's browserInfo requires all eight of its members, numbers as numbers; the gateway's is
 * whatever the merchant sent. Passed on only when complete: a partial one would be refused.
 */
function browserInfoOf(info: Record<string, unknown> | undefined): Types.checkout.BrowserInfo | undefined {
  if (!info) return undefined;
  const text = (key: string) => (typeof info[key] === 'string' ? info[key] : undefined);
  const integer = (key: string) => {
    const value = typeof info[key] === 'number' ? info[key] : Number(text(key));
    return Number.isInteger(value) ? value : undefined;
  };
  const fields = {
    acceptHeader: text('acceptHeader'),
    colorDepth: integer('colorDepth'),
    javaEnabled: typeof info.javaEnabled === 'boolean' ? info.javaEnabled : false,
    language: text('language'),
    screenHeight: integer('screenHeight'),
    screenWidth: integer('screenWidth'),
    timeZoneOffset: integer('timeZoneOffset') ?? integer('timezone'),
    userAgent: text('userAgent'),
  };
  const complete = Object.values(fields).every((value) => value !== undefined);
  return complete ? (fields as Types.checkout.BrowserInfo) : undefined;
}
