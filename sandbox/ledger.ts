import type { CallbackEvent } from './callbacks.js';
import { FirstAnswers } from './idempotency.js';
import type { FinalOutcome } from './outcomes.js';
import { newId, SandboxError } from './util.js';

export type PaymentStatus =
  | 'pending'
  | 'challenge'
  | 'approved' // authorized, not captured
  | 'captured'
  | 'declined'
  | 'voided'
  | 'refunded'
  | 'partially_refunded';

export interface Refund {
  id: string;
  reference: string;
  amount: number;
  status: 'succeeded';
}

export interface Payment {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  capture: boolean;
  status: PaymentStatus;
  amountCaptured: number;
  amountRefunded: number;
  declineCode?: string;
  declineReason?: string;
  authorizationCode?: string;
  eci?: string;
  challengeUrl?: string;
  /** Refunds by the gateway's refund reference (idempotency key). */
  refunds: Map<string, Refund>;
}

export interface NewPayment {
  reference: string;
  amount: number;
  currency: string;
  capture: boolean;
}

/**
 * One processor's payments, in memory (a restart forgets them). Every state change checks the
 * current state first; a change that is not allowed is a 409 `invalid_state`.
 */
export class Ledger {
  private readonly byId = new Map<string, Payment>();
  private readonly byReference = new Map<string, Payment>();
  /** The first answer per reference: the same reference again gets it back (no second charge). */
  readonly answers = new FirstAnswers();

  constructor(readonly idPrefix: string) {}

  open(input: NewPayment, status: 'pending' | 'challenge'): Payment {
    const payment: Payment = {
      id: newId(this.idPrefix),
      ...input,
      status,
      amountCaptured: 0,
      amountRefunded: 0,
      refunds: new Map(),
    };
    this.byId.set(payment.id, payment);
    this.byReference.set(payment.reference, payment);
    return payment;
  }

  get(id: string): Payment {
    const payment = this.byId.get(id);
    if (!payment) throw new SandboxError(404, 'not_found', `no payment ${id}`);
    return payment;
  }

  findByReference(reference: string): Payment | undefined {
    return this.byReference.get(reference);
  }
}

/** Applies the final outcome of an authorization (from `pending` or `challenge`). */
export function settle(payment: Payment, outcome: FinalOutcome): void {
  if (outcome.result === 'approved') {
    payment.status = payment.capture ? 'captured' : 'approved';
    payment.amountCaptured = payment.capture ? payment.amount : 0;
    payment.authorizationCode = authorizationCode();
    if (outcome.eci) payment.eci = outcome.eci;
  } else {
    payment.status = 'declined';
    payment.declineCode = outcome.code;
    payment.declineReason = outcome.reason;
  }
}

export function capture(payment: Payment, amount = payment.amount): void {
  if (payment.status !== 'approved') throw invalidState(payment, 'capture');
  if (amount > payment.amount) {
    throw new SandboxError(409, 'invalid_amount', `capture amount ${amount} exceeds the authorized ${payment.amount}`);
  }
  payment.status = 'captured';
  payment.amountCaptured = amount;
}

export function voidPayment(payment: Payment): void {
  if (payment.status !== 'approved') throw invalidState(payment, 'void');
  payment.status = 'voided';
}

export function refund(payment: Payment, amount: number, reference: string): Refund {
  const earlier = payment.refunds.get(reference);
  if (earlier) return earlier;
  if (payment.status !== 'captured' && payment.status !== 'partially_refunded') throw invalidState(payment, 'refund');
  const refundable = payment.amountCaptured - payment.amountRefunded;
  if (amount > refundable) {
    throw new SandboxError(409, 'invalid_amount', `refund amount ${amount} exceeds the refundable ${refundable}`, {
      refundable,
    });
  }
  const created: Refund = { id: newId('rf'), reference, amount, status: 'succeeded' };
  payment.refunds.set(reference, created);
  payment.amountRefunded += amount;
  payment.status = payment.amountRefunded === payment.amountCaptured ? 'refunded' : 'partially_refunded';
  return created;
}

/** The status answer (`GET …/payments/{id}` and `?reference=`). */
export function paymentView(payment: Payment) {
  return {
    id: payment.id,
    reference: payment.reference,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    amountCaptured: payment.amountCaptured,
    amountRefunded: payment.amountRefunded,
    ...(payment.declineCode ? { declineCode: payment.declineCode } : {}),
    ...(payment.declineReason ? { declineReason: payment.declineReason } : {}),
  };
}

const CALLBACK_STATUS: Partial<Record<PaymentStatus, string>> = {
  pending: 'pending',
  challenge: 'requires_action',
  approved: 'success',
  captured: 'success',
  declined: 'failed',
};

/** The callback announcing an authorization's current state. */
export function paymentEvent(payment: Payment): CallbackEvent {
  return {
    eventId: newId('evt'),
    transactionId: payment.id,
    status: CALLBACK_STATUS[payment.status] ?? payment.status,
    amount: payment.amount,
    currency: payment.currency,
    timestamp: new Date().toISOString(),
    providerData: {
      reference: payment.reference,
      ...(payment.declineCode ? { declineCode: payment.declineCode } : {}),
      ...(payment.declineReason ? { declineReason: payment.declineReason } : {}),
      ...(payment.status === 'challenge' ? { challengeUrl: payment.challengeUrl } : {}),
      ...(payment.authorizationCode ? { authorizationCode: payment.authorizationCode } : {}),
      ...(payment.eci ? { eci: payment.eci } : {}),
    },
  };
}

function invalidState(payment: Payment, action: string): SandboxError {
  return new SandboxError(409, 'invalid_state', `cannot ${action} a payment in status ${payment.status}`, {
    status: payment.status,
  });
}

function authorizationCode(): string {
  return newId('x').slice(-6).toUpperCase();
}
