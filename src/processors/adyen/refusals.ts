import { DECLINE_REASONS, DEFAULT_DECLINE_CODE, type DeclineCode } from '../decline-codes.js';

/**
 * Adyen's refusal reasons (docs.adyen.com, "Refusal reasons": `refusalReasonCode` and the
 * `refusalReason` text) mapped to the gateway's ISO 8583 style decline codes (docs/errors.md).
 * Every code not listed here is `05` do not honour, as are unknown ones.
 */
const BY_ADYEN_CODE: Record<string, { text: string; ours: DeclineCode }> = {
  '0': { text: 'Unknown', ours: '05' },
  '2': { text: 'Refused', ours: '05' },
  '3': { text: 'Referral', ours: '05' },
  '4': { text: 'Acquirer Error', ours: '05' },
  '5': { text: 'Blocked Card', ours: '57' },
  '6': { text: 'Expired Card', ours: '54' },
  '7': { text: 'Invalid Amount', ours: '05' },
  '8': { text: 'Invalid Card Number', ours: '05' },
  '9': { text: 'Issuer Unavailable', ours: '05' },
  '10': { text: 'Not supported', ours: '57' },
  '11': { text: '3D Not Authenticated', ours: '05' },
  '12': { text: 'Not enough balance', ours: '51' },
  '14': { text: 'Acquirer Fraud', ours: '05' },
  '15': { text: 'Cancelled', ours: '05' },
  '16': { text: 'Shopper Cancelled', ours: '05' },
  '20': { text: 'FRAUD', ours: '05' },
  '22': { text: 'FRAUD-CANCELLED', ours: '05' },
  '23': { text: 'Transaction Not Permitted', ours: '57' },
  '24': { text: 'CVC Declined', ours: '05' },
  '25': { text: 'Restricted Card', ours: '57' },
  '27': { text: 'Declined Non Generic', ours: '05' },
  '28': { text: 'Withdrawal amount exceeded', ours: '61' },
  '29': { text: 'Withdrawal count exceeded', ours: '61' },
  '31': { text: 'Issuer Suspected Fraud', ours: '05' },
  '46': { text: 'Transaction blocked by Adyen to prevent excessive retry fees', ours: '57' },
};

const BY_TEXT = new Map(Object.values(BY_ADYEN_CODE).map((r) => [r.text.toLowerCase(), r.ours]));

export interface Decline {
  declineCode: DeclineCode;
  declineReason: string;
}

/**
 * Our code for Adyen's refusal, by `refusalReasonCode` when the answer has one, else by the reason
 * text (notifications carry only the text). The reason keeps Adyen's words after ours.
 */
export function declineOf(refusalReasonCode: string | undefined, refusalReason: string | undefined): Decline {
  const code =
    (refusalReasonCode !== undefined ? BY_ADYEN_CODE[refusalReasonCode]?.ours : undefined) ??
    (refusalReason !== undefined ? BY_TEXT.get(refusalReason.toLowerCase()) : undefined) ??
    DEFAULT_DECLINE_CODE;
  const adyen = refusalReason || (refusalReasonCode !== undefined ? BY_ADYEN_CODE[refusalReasonCode]?.text : undefined);
  return { declineCode: code, declineReason: adyen ? `${DECLINE_REASONS[code]} (${adyen})` : DECLINE_REASONS[code] };
}
