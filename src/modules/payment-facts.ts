import { Type } from '@sinclair/typebox';
import { nullable } from '../lib/schema.js';

/**
 * How and by whom a payment was paid: its method, the payer's name and e-mail, a UPI payment's UPI id and
 * a wallet payment's wallet. Shared by the payments module (every payment) and the payment-requests module
 * (each listed request's last attempt), so the two answers cannot drift apart; like payment-failures.ts.
 */

export const PaymentPayer = Type.Object(
  { name: nullable(Type.String()), email: nullable(Type.String()) },
  { description: "The payer's name and e-mail as submitted with the payment" },
);

export const PaidWith = {
  method: Type.String({ description: 'card, token (a stored card), upi or wallet' }),
  payer: PaymentPayer,
  upiId: nullable(Type.String({ description: "A UPI payment's payer UPI id (a collect's; an intent may have none)" })),
  walletType: nullable(Type.String({ description: "A wallet payment's wallet: googlepay or applepay" })),
};

/** What decides them (a payment row, or the part of it a module reads). */
export interface PaymentMethodRow {
  method: string;
  payer: Record<string, unknown>;
  options: Record<string, unknown>;
}

export function paidWith(payment: PaymentMethodRow) {
  return {
    method: payment.method,
    payer: { name: text(payment.payer.name), email: text(payment.payer.email) },
    upiId: payment.method === 'upi' ? text(payment.options.upiId) : null,
    walletType: payment.method === 'wallet' ? text(payment.options.walletType) : null,
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
