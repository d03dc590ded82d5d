/**
 * How Adyen's test environment plays refusals: the card holder name set to a test value gives the
 * matching result code and refusal reason (docs.adyen.com, "Testing result codes and refusal
 * reasons"; the codes are those of "Refusal reasons").
 */
export interface Refusal {
  resultCode: 'Refused' | 'Error';
  refusalReason: string;
  refusalReasonCode: string;
}

export const HOLDER_NAME_REFUSALS: Record<string, Refusal> = {
  UNKNOWN: { resultCode: 'Error', refusalReason: 'Unknown', refusalReasonCode: '0' },
  DECLINED: { resultCode: 'Refused', refusalReason: 'Refused', refusalReasonCode: '2' },
  REFERRAL: { resultCode: 'Refused', refusalReason: 'Referral', refusalReasonCode: '3' },
  ERROR: { resultCode: 'Error', refusalReason: 'Acquirer Error', refusalReasonCode: '4' },
  BLOCK_CARD: { resultCode: 'Refused', refusalReason: 'Blocked Card', refusalReasonCode: '5' },
  CARD_EXPIRED: { resultCode: 'Refused', refusalReason: 'Expired Card', refusalReasonCode: '6' },
  INVALID_AMOUNT: { resultCode: 'Refused', refusalReason: 'Invalid Amount', refusalReasonCode: '7' },
  INVALID_CARD_NUMBER: { resultCode: 'Refused', refusalReason: 'Invalid Card Number', refusalReasonCode: '8' },
  ISSUER_UNAVAILABLE: { resultCode: 'Refused', refusalReason: 'Issuer Unavailable', refusalReasonCode: '9' },
  NOT_SUPPORTED: { resultCode: 'Refused', refusalReason: 'Not supported', refusalReasonCode: '10' },
  NOT_3D_AUTHENTICATED: { resultCode: 'Refused', refusalReason: '3D Not Authenticated', refusalReasonCode: '11' },
  NOT_ENOUGH_BALANCE: { resultCode: 'Refused', refusalReason: 'Not enough balance', refusalReasonCode: '12' },
  ACQUIRER_FRAUD: { resultCode: 'Refused', refusalReason: 'Acquirer Fraud', refusalReasonCode: '14' },
  CANCELLED: { resultCode: 'Refused', refusalReason: 'Cancelled', refusalReasonCode: '15' },
  SHOPPER_CANCELLED: { resultCode: 'Refused', refusalReason: 'Shopper Cancelled', refusalReasonCode: '16' },
  FRAUD: { resultCode: 'Refused', refusalReason: 'FRAUD', refusalReasonCode: '20' },
  CVC_DECLINED: { resultCode: 'Refused', refusalReason: 'CVC Declined', refusalReasonCode: '24' },
};

/** A failed 3-D Secure challenge. */
export const NOT_AUTHENTICATED = HOLDER_NAME_REFUSALS.NOT_3D_AUTHENTICATED;

/**
 * Adyen's 3-D Secure 2 test cards: a redirect (RedirectShopper) to the simulator's challenge page.
 * Native 3-D Secure 2 (IdentifyShopper/ChallengeShopper with Adyen's SDK) is not played.
 */
export const THREE_D_SECURE_CARDS = new Set(['4917610000000000', '5454545454545454', '4212345678910006']);

export function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mc';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}
