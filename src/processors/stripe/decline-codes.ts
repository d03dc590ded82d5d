import { DECLINE_REASONS, DEFAULT_DECLINE_CODE, type DeclineCode } from '../decline-codes.js';

/**
 * Stripe's decline codes (its `decline_code`, else the error `code`) in the gateway's ISO 8583 style
 * vocabulary: 05 do not honour, 51 insufficient funds, 54 expired card, 57 transaction not
 * permitted, 61 exceeds withdrawal limit. Every code Stripe documents is listed; one it adds later
 * falls to 05, the generic refusal. Codes that would tell a payer more than they should (lost,
 * stolen, fraudulent) are 05 on purpose, as Stripe itself advises.
 */
export const STRIPE_DECLINE_CODES: Readonly<Record<string, DeclineCode>> = {
  insufficient_funds: '51',

  expired_card: '54',
  invalid_expiry_month: '54',
  invalid_expiry_year: '54',

  card_not_supported: '57',
  currency_not_supported: '57',
  invalid_account: '57',
  not_permitted: '57',
  restricted_card: '57',
  service_not_allowed: '57',
  testmode_decline: '57',
  transaction_not_allowed: '57',

  card_velocity_exceeded: '61',
  invalid_amount: '61',
  withdrawal_count_limit_exceeded: '61',

  approve_with_id: '05',
  authentication_required: '05',
  call_issuer: '05',
  card_declined: '05',
  do_not_honor: '05',
  do_not_try_again: '05',
  duplicate_transaction: '05',
  fraudulent: '05',
  generic_decline: '05',
  incorrect_cvc: '05',
  incorrect_number: '05',
  incorrect_pin: '05',
  incorrect_zip: '05',
  invalid_cvc: '05',
  invalid_number: '05',
  invalid_pin: '05',
  issuer_not_available: '05',
  lost_card: '05',
  merchant_blacklist: '05',
  new_account_information_available: '05',
  no_action_taken: '05',
  offline_pin_required: '05',
  online_or_offline_pin_required: '05',
  pickup_card: '05',
  pin_try_exceeded: '05',
  processing_error: '05',
  reenter_transaction: '05',
  revocation_of_all_authorizations: '05',
  revocation_of_authorization: '05',
  security_violation: '05',
  stolen_card: '05',
  stop_payment_order: '05',
  try_again_later: '05',
};

/** The code Stripe gives when the payer failed 3-D Secure: a refusal, with its own reason. */
const AUTHENTICATION_FAILURE = 'payment_intent_authentication_failure';
export const THREE_DS_FAILED_REASON = '3-D Secure authentication failed';

export interface GatewayDecline {
  declineCode: DeclineCode;
  declineReason: string;
}

/** `declineCode` is Stripe's decline_code when it gave one, else its error code. */
export function gatewayDecline(stripeCode: string | null | undefined): GatewayDecline {
  if (stripeCode === AUTHENTICATION_FAILURE) {
    return { declineCode: DEFAULT_DECLINE_CODE, declineReason: THREE_DS_FAILED_REASON };
  }
  const declineCode = (stripeCode && STRIPE_DECLINE_CODES[stripeCode]) || DEFAULT_DECLINE_CODE;
  return { declineCode, declineReason: DECLINE_REASONS[declineCode] };
}
