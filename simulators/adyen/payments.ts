import { randomBytes } from 'node:crypto';
import { type Json, type JsonObject, isObject, text } from '../shared/json.js';
import type { LedgerEntry } from '../shared/ledger.js';
import { HOLDER_NAME_REFUSALS, NOT_AUTHENTICATED, type Refusal, THREE_D_SECURE_CARDS, brandOf } from './outcomes.js';

export interface Answer {
  status: number;
  body: Json;
}

/** A standard notification to send: one NotificationRequestItem, before its signature. */
export interface NotificationItem {
  eventCode: 'AUTHORISATION' | 'CAPTURE' | 'CANCELLATION' | 'REFUND' | 'CHARGEBACK';
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { currency: string; value: number };
  success: boolean;
  reason?: string;
  paymentMethod?: string;
}

export type Notify = (item: NotificationItem) => void;

interface Payment {
  pspReference: string;
  merchantAccount: string;
  reference: string;
  amount: { currency: string; value: number };
  brand: string;
  status: 'RedirectShopper' | 'Authorised' | 'Refused' | 'Error' | 'Cancelled';
  refusal?: Refusal;
  autoCapture: boolean;
  returnUrl?: string;
  captured: number;
  refunded: number;
  /** The redirectResult handed back to the shopper's browser after the challenge. */
  redirectResult?: string;
}

/** Adyen-looking PSP references: 16 characters. */
const psp = () => randomBytes(12).toString('base64url').replace(/[-_]/g, 'X').slice(0, 16).toUpperCase();

export const serviceError = (status: number, errorCode: string, message: string, errorType: string): Answer => ({
  status,
  body: { status, errorCode, message, errorType },
});

/**
 * Adyen's Checkout payments in memory: /payments with raw card fields, the redirect 3-D Secure flow
 * and /payments/details, and the asynchronous modifications (capture, cancel, refund) that answer
 * `received` at once and report their outcome in a standard notification.
 */
export class AdyenPayments {
  private readonly payments = new Map<string, Payment>();
  private readonly redirects = new Map<string, string>();

  constructor(
    private readonly publicUrl: () => string,
    private readonly notify: Notify,
  ) {}

  pay(body: JsonObject): Answer {
    const method = isObject(body.paymentMethod) ? body.paymentMethod : {};
    if (method.type !== 'scheme' || typeof method.number !== 'string') {
      return serviceError(
        422,
        '000',
        'The simulator plays only raw card payments (paymentMethod.type scheme with number).',
        'validation',
      );
    }
    const number = method.number.replace(/\s+/g, '');
    const amount = body.amount as { currency: string; value: number };
    const payment: Payment = {
      pspReference: psp(),
      merchantAccount: text(body.merchantAccount),
      reference: text(body.reference),
      amount: { currency: amount.currency, value: amount.value },
      brand: brandOf(number),
      status: 'Authorised',
      autoCapture: body.captureDelayHours === 0,
      returnUrl: typeof body.returnUrl === 'string' ? body.returnUrl : undefined,
      captured: 0,
      refunded: 0,
    };
    this.payments.set(payment.pspReference, payment);
    const refusal = HOLDER_NAME_REFUSALS[typeof method.holderName === 'string' ? method.holderName : ''];
    if (refusal) return this.finish(payment, refusal);
    if (THREE_D_SECURE_CARDS.has(number)) {
      payment.status = 'RedirectShopper';
      return {
        status: 200,
        body: {
          resultCode: 'RedirectShopper',
          action: {
            paymentMethodType: 'scheme',
            method: 'GET',
            type: 'redirect',
            url: `${this.publicUrl()}/3ds/${payment.pspReference}`,
          },
          merchantReference: payment.reference,
        },
      };
    }
    return this.finish(payment, undefined);
  }

  details(body: JsonObject): Answer {
    const details = isObject(body.details) ? body.details : {};
    const token = typeof details.redirectResult === 'string' ? details.redirectResult : '';
    const pspReference = this.redirects.get(token);
    const payment = pspReference ? this.payments.get(pspReference) : undefined;
    if (!payment) return serviceError(422, '101', 'Invalid redirectResult', 'validation');
    this.redirects.delete(token);
    return this.answer(payment);
  }

  /** The shopper's answer on the challenge page; gives the browser's way back to returnUrl. */
  authenticate(pspReference: string, approved: boolean): string | undefined {
    const payment = this.payments.get(pspReference);
    if (!payment || payment.status !== 'RedirectShopper') return undefined;
    this.finish(payment, approved ? undefined : NOT_AUTHENTICATED);
    const token = randomBytes(24).toString('base64url');
    this.redirects.set(token, payment.pspReference);
    if (!payment.returnUrl) return undefined;
    const back = new URL(payment.returnUrl);
    back.searchParams.set('redirectResult', token);
    return back.toString();
  }

  pending(pspReference: string): Payment | undefined {
    const payment = this.payments.get(pspReference);
    return payment?.status === 'RedirectShopper' ? payment : undefined;
  }

  capture(pspReference: string, body: JsonObject): Answer {
    return this.modify(pspReference, body, 'CAPTURE', (payment, value) => {
      if (payment.status !== 'Authorised') return 'Payment is not authorised';
      if (payment.autoCapture) return 'Payment was captured automatically';
      if (value > payment.amount.value - payment.captured) return 'Insufficient balance on payment';
      payment.captured += value;
      return undefined;
    });
  }

  cancel(pspReference: string, body: JsonObject): Answer {
    return this.modify(pspReference, body, 'CANCELLATION', (payment) => {
      if (payment.status !== 'Authorised') return 'Payment is not authorised';
      if (payment.captured > 0) return 'Payment has been captured';
      payment.status = 'Cancelled';
      return undefined;
    });
  }

  refund(pspReference: string, body: JsonObject): Answer {
    return this.modify(pspReference, body, 'REFUND', (payment, value) => {
      if (value > payment.captured - payment.refunded) return 'Insufficient balance on payment';
      payment.refunded += value;
      return undefined;
    });
  }

  /** A chargeback on a captured payment (CHARGEBACK notification). */
  chargeback(pspReference: string): void {
    const payment = this.payments.get(pspReference);
    if (!payment || payment.captured === 0) throw new Error(`no captured payment ${pspReference}`);
    this.notify({
      eventCode: 'CHARGEBACK',
      pspReference: payment.pspReference,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.reference,
      amount: { currency: payment.amount.currency, value: payment.captured - payment.refunded },
      success: true,
      reason: 'Fraudulent transaction',
      paymentMethod: payment.brand,
    });
  }

  ledger(): LedgerEntry[] {
    return [...this.payments.values()].map((p) => ({
      id: p.pspReference,
      reference: p.reference,
      amount: p.amount.value,
      currency: p.amount.currency,
      status: p.status,
      authorised: p.status === 'Authorised' || p.captured > 0 ? p.amount.value : 0,
      captured: p.captured,
      refunded: p.refunded,
    }));
  }

  private finish(payment: Payment, refusal: Refusal | undefined): Answer {
    payment.status = refusal ? refusal.resultCode : 'Authorised';
    payment.refusal = refusal;
    if (!refusal && payment.autoCapture) payment.captured = payment.amount.value;
    this.notify({
      eventCode: 'AUTHORISATION',
      pspReference: payment.pspReference,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.reference,
      amount: payment.amount,
      success: !refusal,
      ...(refusal ? { reason: refusal.refusalReason } : {}),
      paymentMethod: payment.brand,
    });
    return this.answer(payment);
  }

  private answer(payment: Payment): Answer {
    const refusal = payment.refusal;
    return {
      status: 200,
      body: {
        pspReference: payment.pspReference,
        resultCode: payment.status === 'Cancelled' ? 'Authorised' : payment.status,
        amount: payment.amount,
        merchantReference: payment.reference,
        paymentMethod: { brand: payment.brand, type: 'scheme' },
        ...(refusal ? { refusalReason: refusal.refusalReason, refusalReasonCode: refusal.refusalReasonCode } : {}),
      },
    };
  }

  /**
   * A modification: `received` now (201), its outcome later in a notification, as Adyen does.
   * `apply` checks and books it, or says why it fails.
   */
  private modify(
    pspReference: string,
    body: JsonObject,
    eventCode: 'CAPTURE' | 'CANCELLATION' | 'REFUND',
    apply: (payment: Payment, value: number) => string | undefined,
  ): Answer {
    const payment = this.payments.get(pspReference);
    if (!payment) return serviceError(422, '167', 'Original pspReference required for this operation', 'validation');
    const amount = isObject(body.amount) ? (body.amount as { currency: string; value: number }) : undefined;
    if (amount && amount.currency !== payment.amount.currency) {
      return serviceError(422, '138', 'Invalid currency: must match the payment', 'validation');
    }
    const value = amount?.value ?? payment.amount.value;
    const modification = psp();
    const failure = apply(payment, value);
    this.notify({
      eventCode,
      pspReference: modification,
      originalReference: payment.pspReference,
      merchantAccountCode: payment.merchantAccount,
      merchantReference: typeof body.reference === 'string' ? body.reference : payment.reference,
      amount: { currency: payment.amount.currency, value: eventCode === 'CANCELLATION' ? payment.amount.value : value },
      success: failure === undefined,
      ...(failure ? { reason: failure } : {}),
      paymentMethod: payment.brand,
    });
    const answer: JsonObject = {
      merchantAccount: text(body.merchantAccount),
      paymentPspReference: payment.pspReference,
      pspReference: modification,
      status: 'received',
      ...(typeof body.reference === 'string' ? { reference: body.reference } : {}),
      ...(eventCode === 'CANCELLATION' ? {} : { amount: { currency: payment.amount.currency, value } }),
    };
    return { status: 201, body: answer };
  }
}
