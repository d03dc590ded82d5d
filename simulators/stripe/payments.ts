import { randomBytes } from 'node:crypto';
import { type Json, type JsonObject, isObject, text } from '../shared/json.js';
import type { LedgerEntry } from '../shared/ledger.js';
import { luhn, outcomeOf } from './cards.js';
import {
  type Card,
  type Charge,
  type PaymentIntent,
  type PaymentMethod,
  apiError,
  chargeObject,
  disputeObject,
  newId,
  now,
  paymentIntentObject,
  paymentMethodObject,
  refundObject,
} from './objects.js';

export interface Answer {
  status: number;
  body: Json;
}

/** Where the simulator's events go (signed and posted by the server). */
export type Emit = (type: string, object: JsonObject, resource: string) => void;

const ok = (body: Json): Answer => ({ status: 200, body });
const invalid = (message: string, extra: JsonObject = {}): Answer => ({
  status: 400,
  body: apiError('invalid_request_error', message, extra),
});
const missing = (kind: string, id: string, param: string): Answer => ({
  status: 404,
  body: apiError('invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param }),
});

const strings = (value: Json | undefined): Record<string, string> =>
  isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, text(v)])) : {};

function cardFrom(value: Json | undefined): Card | undefined {
  if (!isObject(value) || typeof value.number !== 'string') return undefined;
  return {
    number: value.number.replace(/\s+/g, ''),
    expMonth: Number(value.exp_month),
    expYear: Number(value.exp_year),
    cvc: typeof value.cvc === 'string' ? value.cvc : undefined,
  };
}

/**
 * The PaymentIntents state machine as Stripe documents it, in memory: creation and confirmation
 * with a card, 3-D Secure, manual or automatic capture, cancellation and refunds, with the
 * events each step sends.
 */
export class StripePayments {
  readonly intents = new Map<string, PaymentIntent>();
  private readonly methods = new Map<string, PaymentMethod>();
  private readonly refunds = new Map<string, { refundId: string; pi: PaymentIntent; charge: Charge }>();

  constructor(
    private readonly publicUrl: () => string,
    private readonly emit: Emit,
  ) {}

  createPaymentMethod(body: JsonObject): Answer {
    if (body.type !== 'card') return invalid('The simulator plays only card PaymentMethods.', { param: 'type' });
    const card = cardFrom(body.card);
    if (!card) return invalid('Provide card[number], card[exp_month] and card[exp_year].', { param: 'card' });
    const refused = this.checkCard(card);
    if (refused) return refused;
    const pm: PaymentMethod = { id: newId('pm'), created: now(), card, metadata: strings(body.metadata) };
    this.methods.set(pm.id, pm);
    return ok(paymentMethodObject(pm));
  }

  createPaymentIntent(body: JsonObject): Answer {
    const amount = Number(body.amount);
    if (amount < 50) return invalid('Amount must be at least 50 cents', { code: 'amount_too_small', param: 'amount' });
    const pi: PaymentIntent = {
      id: newId('pi'),
      clientSecret: '',
      created: now(),
      amount,
      currency: text(body.currency).toLowerCase(),
      captureMethod: body.capture_method === 'manual' ? 'manual' : 'automatic',
      status: 'requires_payment_method',
      description: typeof body.description === 'string' ? body.description : null,
      metadata: strings(body.metadata),
      charges: [],
      capturable: 0,
      received: 0,
    };
    pi.clientSecret = `${pi.id}_secret_${randomBytes(12).toString('base64url')}`;
    const attached = this.attach(pi, body);
    if (attached) return attached;
    this.intents.set(pi.id, pi);
    return body.confirm === true ? this.confirmIntent(pi, body) : ok(this.view(pi));
  }

  retrieve(id: string): Answer {
    const pi = this.intents.get(id);
    return pi ? ok(this.view(pi)) : missing('payment_intent', id, 'intent');
  }

  confirm(id: string, body: JsonObject): Answer {
    const pi = this.intents.get(id);
    if (!pi) return missing('payment_intent', id, 'intent');
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') {
      return this.unexpectedState(pi, 'confirm');
    }
    const attached = this.attach(pi, body);
    return attached ?? this.confirmIntent(pi, body);
  }

  capture(id: string, body: JsonObject): Answer {
    const pi = this.intents.get(id);
    if (!pi) return missing('payment_intent', id, 'intent');
    if (pi.status !== 'requires_capture') return this.unexpectedState(pi, 'capture');
    const amount = body.amount_to_capture === undefined ? pi.capturable : Number(body.amount_to_capture);
    if (amount > pi.capturable || amount <= 0) {
      return invalid(`The amount to capture must be between 1 and the amount capturable (${pi.capturable}).`, {
        code: 'amount_too_large',
        param: 'amount_to_capture',
      });
    }
    this.settle(pi, amount);
    return ok(this.view(pi));
  }

  cancel(id: string, body: JsonObject): Answer {
    const pi = this.intents.get(id);
    if (!pi) return missing('payment_intent', id, 'intent');
    const cancellable = ['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture'];
    if (!cancellable.includes(pi.status)) return this.unexpectedState(pi, 'cancel');
    pi.status = 'canceled';
    pi.canceledAt = now();
    pi.cancellationReason = typeof body.cancellation_reason === 'string' ? body.cancellation_reason : undefined;
    pi.capturable = 0;
    this.emit('payment_intent.canceled', this.view(pi), 'payment_intent');
    return ok(this.view(pi));
  }

  refund(body: JsonObject): Answer {
    let pi: PaymentIntent | undefined;
    let charge: Charge | undefined;
    if (typeof body.payment_intent === 'string') {
      pi = this.intents.get(body.payment_intent);
      if (!pi) return missing('payment_intent', body.payment_intent, 'payment_intent');
      charge = pi.charges.find((c) => c.status === 'succeeded');
    } else if (typeof body.charge === 'string') {
      for (const candidate of this.intents.values()) {
        charge ??= candidate.charges.find((c) => c.id === body.charge);
        if (charge && !pi) pi = candidate;
      }
      if (!pi || !charge) return missing('charge', body.charge, 'charge');
    } else {
      return invalid('One of `charge` or `payment_intent` is required.', { code: 'parameter_missing' });
    }
    if (!charge || !charge.captured) {
      return invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
        code: 'charge_not_refundable',
      });
    }
    const refunded = charge.refunds.reduce((sum, r) => sum + r.amount, 0);
    const remaining = charge.amountCaptured - refunded;
    if (remaining <= 0) {
      return invalid(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' });
    }
    const amount = body.amount === undefined ? remaining : Number(body.amount);
    if (amount <= 0 || amount > remaining) {
      return invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining}).`, {
        code: 'amount_too_large',
        param: 'amount',
      });
    }
    const refund = {
      id: newId('re'),
      amount,
      created: now(),
      reason: typeof body.reason === 'string' ? body.reason : null,
      metadata: strings(body.metadata),
      chargeId: charge.id,
      paymentIntentId: pi.id,
    };
    charge.refunds.push(refund);
    this.refunds.set(refund.id, { refundId: refund.id, pi, charge });
    this.emit('charge.refunded', chargeObject(charge, pi), 'charge');
    this.emit('refund.updated', refundObject(refund, pi.currency), 'refund');
    return ok(refundObject(refund, pi.currency));
  }

  retrieveRefund(id: string): Answer {
    const found = this.refunds.get(id);
    const refund = found?.charge.refunds.find((r) => r.id === id);
    return found && refund ? ok(refundObject(refund, found.pi.currency)) : missing('refund', id, 'refund');
  }

  /** The shopper's answer on the 3-D Secure page. */
  authenticate(pi: PaymentIntent, approved: boolean): void {
    if (approved) {
      this.authorize(pi);
      return;
    }
    pi.status = 'requires_payment_method';
    pi.lastError = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      doc_url: 'https://stripe.com/docs/error-codes/payment-intent-authentication-failure',
      payment_method: pi.paymentMethod ? paymentMethodObject(pi.paymentMethod) : null,
    };
    this.emit('payment_intent.payment_failed', this.view(pi), 'payment_intent');
  }

  /** A dispute on the payment's captured charge (charge.dispute.created). */
  dispute(id: string): void {
    const pi = this.intents.get(id);
    const charge = pi?.charges.find((c) => c.captured);
    if (!pi || !charge) throw new Error(`no captured charge for ${id}`);
    charge.disputed = true;
    this.emit('charge.dispute.created', disputeObject(newId('dp'), charge, pi), 'dispute');
  }

  ledger(): LedgerEntry[] {
    return [...this.intents.values()].map((pi) => {
      const charge = pi.charges.find((c) => c.status === 'succeeded');
      return {
        id: pi.id,
        reference: pi.metadata.reference ?? pi.description ?? undefined,
        amount: pi.amount,
        currency: pi.currency,
        status: pi.status,
        authorised: charge ? charge.amount : 0,
        captured: charge?.amountCaptured ?? 0,
        refunded: charge?.refunds.reduce((sum, r) => sum + r.amount, 0) ?? 0,
      };
    });
  }

  view(pi: PaymentIntent): JsonObject {
    return paymentIntentObject(pi, this.publicUrl());
  }

  private attach(pi: PaymentIntent, body: JsonObject): Answer | undefined {
    if (typeof body.return_url === 'string') pi.returnUrl = body.return_url;
    if (typeof body.payment_method === 'string') {
      const pm = this.methods.get(body.payment_method);
      if (!pm) return missing('PaymentMethod', body.payment_method, 'payment_method');
      pi.paymentMethod = pm;
    }
    if (pi.paymentMethod && pi.status === 'requires_payment_method') pi.status = 'requires_confirmation';
    return undefined;
  }

  private checkCard(card: Card): Answer | undefined {
    if (luhn(card.number)) return undefined;
    return {
      status: 402,
      body: apiError('card_error', 'Your card number is incorrect.', { code: 'incorrect_number', param: 'number' }),
    };
  }

  private confirmIntent(pi: PaymentIntent, body: JsonObject): Answer {
    if (typeof body.return_url === 'string') pi.returnUrl = body.return_url;
    const pm = pi.paymentMethod;
    if (!pm) {
      return invalid(
        "You cannot confirm this PaymentIntent because it's missing a payment method. Update it with a payment method and then confirm it again.",
        { code: 'payment_intent_unexpected_state' },
      );
    }
    const outcome = outcomeOf(pm.card.number);
    switch (outcome.kind) {
      case 'three_d_secure':
        pi.status = 'requires_action';
        pi.lastError = undefined;
        return ok(this.view(pi));
      case 'decline': {
        const charge = addCharge(pi, 'failed', {
          code: outcome.code,
          message: outcome.message,
          declineCode: outcome.declineCode,
        });
        pi.status = 'requires_payment_method';
        pi.lastError = {
          type: 'card_error',
          code: outcome.code,
          ...(outcome.declineCode ? { decline_code: outcome.declineCode } : {}),
          message: outcome.message,
          charge: charge.id,
          doc_url: `https://stripe.com/docs/error-codes/${outcome.code.replace(/_/g, '-')}`,
          payment_method: paymentMethodObject(pm),
        };
        const view = this.view(pi);
        this.emit('payment_intent.payment_failed', view, 'payment_intent');
        return { status: 402, body: { error: { ...pi.lastError, payment_intent: view } } };
      }
      case 'approve':
      case 'dispute':
        this.authorize(pi);
        return ok(this.view(pi));
    }
  }

  private authorize(pi: PaymentIntent): void {
    addCharge(pi, 'succeeded');
    pi.lastError = undefined;
    if (pi.captureMethod === 'manual') {
      pi.status = 'requires_capture';
      pi.capturable = pi.amount;
      this.emit('payment_intent.amount_capturable_updated', this.view(pi), 'payment_intent');
    } else {
      pi.capturable = pi.amount;
      this.settle(pi, pi.amount);
    }
  }

  private settle(pi: PaymentIntent, amount: number): void {
    const charge = pi.charges.at(-1) as Charge;
    charge.captured = true;
    charge.amountCaptured = amount;
    pi.received = amount;
    pi.capturable = 0;
    pi.status = 'succeeded';
    this.emit('payment_intent.succeeded', this.view(pi), 'payment_intent');
    if (pi.paymentMethod && outcomeOf(pi.paymentMethod.card.number).kind === 'dispute') this.dispute(pi.id);
  }

  private unexpectedState(pi: PaymentIntent, action: string): Answer {
    return invalid(`This PaymentIntent's ${action} could not be performed because it has a status of ${pi.status}.`, {
      code: 'payment_intent_unexpected_state',
      payment_intent: this.view(pi),
    });
  }
}

/** A new, uncaptured charge of the whole PaymentIntent: a failed one carries its failure. */
function addCharge(pi: PaymentIntent, status: Charge['status'], failure?: Charge['failure']): Charge {
  const charge: Charge = {
    id: newId('ch'),
    created: now(),
    amount: pi.amount,
    captured: false,
    amountCaptured: 0,
    status,
    ...(failure ? { failure } : {}),
    disputed: false,
    refunds: [],
  };
  pi.charges.push(charge);
  return charge;
}
