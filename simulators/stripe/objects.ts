import { randomBytes } from 'node:crypto';
import type { Json, JsonObject } from '../shared/json.js';
import { brandOf } from './cards.js';

/** Stripe-looking ids: a prefix and 24 random characters. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').slice(0, 24)}`;
export const now = () => Math.floor(Date.now() / 1000);

export interface Card {
  number: string;
  expMonth: number;
  expYear: number;
  cvc?: string;
}

export interface PaymentMethod {
  id: string;
  created: number;
  card: Card;
  metadata: Record<string, string>;
}

export interface Refund {
  id: string;
  amount: number;
  created: number;
  reason: string | null;
  metadata: Record<string, string>;
  chargeId: string;
  paymentIntentId: string;
}

export interface Charge {
  id: string;
  created: number;
  amount: number;
  captured: boolean;
  amountCaptured: number;
  status: 'succeeded' | 'failed';
  failure?: { code: string; message: string; declineCode?: string };
  disputed: boolean;
  refunds: Refund[];
}

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';

export interface PaymentIntent {
  id: string;
  clientSecret: string;
  created: number;
  amount: number;
  currency: string;
  captureMethod: 'automatic' | 'manual';
  status: PaymentIntentStatus;
  description: string | null;
  metadata: Record<string, string>;
  paymentMethod?: PaymentMethod;
  returnUrl?: string;
  charges: Charge[];
  lastError?: JsonObject;
  canceledAt?: number;
  cancellationReason?: string;
  /** Amount that can still be captured (requires_capture). */
  capturable: number;
  received: number;
}

export function paymentMethodObject(pm: PaymentMethod): JsonObject {
  return {
    id: pm.id,
    object: 'payment_method',
    billing_details: { address: null, email: null, name: null, phone: null },
    card: {
      brand: brandOf(pm.card.number),
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: pm.card.cvc ? 'pass' : null },
      country: 'US',
      exp_month: pm.card.expMonth,
      exp_year: pm.card.expYear,
      fingerprint: pm.card.number.slice(-8).split('').reverse().join('') + 'fp',
      funding: 'credit',
      generated_from: null,
      last4: pm.card.number.slice(-4),
      networks: { available: [brandOf(pm.card.number)], preferred: null },
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: pm.created,
    customer: null,
    livemode: false,
    metadata: pm.metadata,
    type: 'card',
  };
}

export function refundObject(refund: Refund, currency: string): JsonObject {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    balance_transaction: null,
    charge: refund.chargeId,
    created: refund.created,
    currency,
    metadata: refund.metadata,
    payment_intent: refund.paymentIntentId,
    reason: refund.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
}

export function chargeObject(charge: Charge, pi: PaymentIntent): JsonObject {
  const refunded = charge.refunds.reduce((sum, r) => sum + r.amount, 0);
  const card = pi.paymentMethod?.card;
  return {
    id: charge.id,
    object: 'charge',
    amount: charge.amount,
    amount_captured: charge.amountCaptured,
    amount_refunded: refunded,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: { address: null, email: null, name: null, phone: null },
    calculated_statement_descriptor: 'SIMULATOR',
    captured: charge.captured,
    created: charge.created,
    currency: pi.currency,
    customer: null,
    description: pi.description,
    disputed: charge.disputed,
    failure_balance_transaction: null,
    failure_code: charge.failure?.code ?? null,
    failure_message: charge.failure?.message ?? null,
    fraud_details: {},
    invoice: null,
    livemode: false,
    metadata: pi.metadata,
    on_behalf_of: null,
    outcome: charge.failure
      ? {
          network_status: 'declined_by_network',
          reason: charge.failure.declineCode ?? null,
          risk_level: 'normal',
          seller_message: 'The bank returned the decline code.',
          type: 'issuer_declined',
        }
      : {
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: charge.status === 'succeeded',
    payment_intent: pi.id,
    payment_method: pi.paymentMethod?.id ?? null,
    payment_method_details: card
      ? {
          type: 'card',
          card: {
            brand: brandOf(card.number),
            checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: card.cvc ? 'pass' : null },
            country: 'US',
            exp_month: card.expMonth,
            exp_year: card.expYear,
            funding: 'credit',
            last4: card.number.slice(-4),
            network: brandOf(card.number),
            three_d_secure: null,
            wallet: null,
          },
        }
      : null,
    receipt_email: null,
    receipt_number: null,
    receipt_url: null,
    refunded: charge.captured && refunded >= charge.amountCaptured && charge.amountCaptured > 0,
    refunds: {
      object: 'list',
      data: charge.refunds.map((r) => refundObject(r, pi.currency)),
      has_more: false,
      url: `/v1/charges/${charge.id}/refunds`,
    },
    review: null,
    shipping: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: charge.status,
    transfer_data: null,
    transfer_group: null,
  };
}

export function paymentIntentObject(pi: PaymentIntent, publicUrl: string): JsonObject {
  const latest = pi.charges.at(-1);
  const nextAction: Json =
    pi.status === 'requires_action'
      ? {
          type: 'redirect_to_url',
          redirect_to_url: { url: `${publicUrl}/3ds/${pi.id}`, return_url: pi.returnUrl ?? null },
        }
      : null;
  return {
    id: pi.id,
    object: 'payment_intent',
    amount: pi.amount,
    amount_capturable: pi.capturable,
    amount_received: pi.received,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: pi.canceledAt ?? null,
    cancellation_reason: pi.cancellationReason ?? null,
    capture_method: pi.captureMethod,
    // The 2020-08-27 document's list of charges; newer API versions name only the latest.
    charges: {
      object: 'list',
      data: latest ? [chargeObject(latest, pi)] : [],
      has_more: false,
      url: `/v1/charges?payment_intent=${pi.id}`,
    },
    latest_charge: latest?.id ?? null,
    client_secret: pi.clientSecret,
    confirmation_method: 'automatic',
    created: pi.created,
    currency: pi.currency,
    customer: null,
    description: pi.description,
    invoice: null,
    last_payment_error: pi.lastError ?? null,
    livemode: false,
    metadata: pi.metadata,
    next_action: nextAction,
    on_behalf_of: null,
    payment_method: pi.paymentMethod?.id ?? null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
    },
    payment_method_types: ['card'],
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: pi.status,
    transfer_data: null,
    transfer_group: null,
  };
}

export function disputeObject(id: string, charge: Charge, pi: PaymentIntent): JsonObject {
  return {
    id,
    object: 'dispute',
    amount: charge.amountCaptured,
    balance_transactions: [],
    charge: charge.id,
    created: now(),
    currency: pi.currency,
    evidence: {
      access_activity_log: null,
      billing_address: null,
      cancellation_policy: null,
      cancellation_policy_disclosure: null,
      cancellation_rebuttal: null,
      customer_communication: null,
      customer_email_address: null,
      customer_name: null,
      customer_purchase_ip: null,
      customer_signature: null,
      duplicate_charge_documentation: null,
      duplicate_charge_explanation: null,
      duplicate_charge_id: null,
      product_description: null,
      receipt: null,
      refund_policy: null,
      refund_policy_disclosure: null,
      refund_refusal_explanation: null,
      service_date: null,
      service_documentation: null,
      shipping_address: null,
      shipping_carrier: null,
      shipping_date: null,
      shipping_documentation: null,
      shipping_tracking_number: null,
      uncategorized_file: null,
      uncategorized_text: null,
    },
    evidence_details: { due_by: now() + 7 * 86400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: pi.id,
    reason: 'fraudulent',
    status: 'needs_response',
  };
}

/** The `error` member of Stripe's error answers (the `api_errors` schema). */
export function apiError(
  type: 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error',
  message: string,
  extra: JsonObject = {},
): { error: JsonObject } {
  return { error: { type, message, ...extra } };
}
