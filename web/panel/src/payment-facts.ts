import { h } from './ui.js';
import type { LastPayment, Payment } from '../../shared/api-types.js';

/** The API's status words, as a reader says them. */
const STATUS_LABELS: Record<string, string> = {
  open: 'Open',
  processing: 'Processing',
  authorized: 'Authorized',
  paid: 'Paid',
  partially_refunded: 'Partially refunded',
  refunded: 'Refunded',
  canceled: 'Canceled',
  expired: 'Expired',
  pending: 'Pending',
  requires_action: 'Waiting for the payer',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

export const statusLabel = (status: string) => STATUS_LABELS[status] ?? status;

/** A status badge; its class keeps the API's word. */
export const statusBadge = (status: string) => h('span', { class: `status status-${status}` }, statusLabel(status));

/** A captured payment stays `succeeded` through its refunds: the badge says what the refunds took. */
export const paymentStatus = (p: Pick<Payment, 'status' | 'refundStatus'>) =>
  statusBadge(p.status === 'succeeded' && p.refundStatus !== 'none' ? p.refundStatus : p.status);

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  diners: 'Diners Club',
  jcb: 'JCB',
  discover: 'Discover',
  unionpay: 'UnionPay',
};
const WALLETS: Record<string, string> = { googlepay: 'Google Pay', applepay: 'Apple Pay' };

/** How the payer paid: card brand and last 4, UPI id, or wallet (a wallet's card is the wallet's). */
export function methodOf(p: Pick<LastPayment, 'method' | 'card' | 'upiId' | 'walletType'>): string {
  if (p.card) return `${BRANDS[p.card.brand] ?? p.card.brand} •••• ${p.card.last4}`;
  if (p.method === 'upi') return p.upiId ? `UPI ${p.upiId}` : 'UPI (QR code)';
  if (p.method === 'wallet') return p.walletType ? (WALLETS[p.walletType] ?? p.walletType) : 'Wallet';
  return p.method;
}

/** Name above e-mail, each only when given. */
export function payerOf(p: Pick<Payment, 'payer'>): HTMLElement {
  const { name, email } = p.payer;
  if (!name && !email) return h('span', { class: 'muted' }, '—');
  return h('span', { class: 'payer' }, name ?? '', name && email ? h('br') : null, email ?? '');
}

/** A payment's own page (payment.ts). */
export const paymentHref = (paymentId: number) => `#/payments/attempts/${paymentId}`;
export const paymentLink = (paymentId: number) => h('a', { href: paymentHref(paymentId) }, String(paymentId));
export const requestLink = (id: number, text = String(id)) => h('a', { href: `#/payments/${id}` }, text);
