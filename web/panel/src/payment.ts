import { call, money, when } from './api.js';
import type { Payment } from '../../shared/api-types.js';
import { methodOf, payerOf, paymentStatus, requestLink } from './payment-facts.js';
import { h, replaceContent } from './ui.js';

/**
 * One payment attempt: how and by whom it was paid, what was captured and refunded, why it failed. What
 * can be done with it (capture, void, refund) is on its request's page, with its other attempts.
 */
export async function renderPayment(root: HTMLElement, paymentId: number): Promise<void> {
  const p = await call<Payment>('GET', `/payments/${paymentId}`);
  const fact = (term: string, value: Node | string) => [h('dt', {}, term), h('dd', {}, value)];
  replaceContent(
    root,
    h('p', {}, h('a', { href: '#/payments/attempts' }, '← Payments')),
    h('h1', { tabindex: '-1' }, `Payment ${p.paymentId}`),
    h(
      'dl',
      { class: 'facts' },
      ...fact('Status', paymentStatus(p)),
      ...fact('Payment request', requestLink(p.paymentRequestId, `Payment request ${p.paymentRequestId}`)),
      ...fact('Method', methodOf(p)),
      ...(p.card ? fact('Card', `BIN ${p.card.bin}, expires ${p.card.expiration}`) : []),
      ...fact('Payer', payerOf(p)),
      ...fact('Amount', money(p.amount, p.currency)),
      ...fact('Captured', money(p.amountCaptured, p.currency)),
      ...fact('Refunded', money(p.amountRefunded, p.currency)),
      ...(p.declineReason
        ? fact('Decline', p.declineCode ? `${p.declineReason} (${p.declineCode})` : p.declineReason)
        : []),
      ...(p.threeDs
        ? fact('3-D Secure', `Result ${p.threeDs.result}${p.threeDs.eci ? `, ECI ${p.threeDs.eci}` : ''}`)
        : []),
      ...fact('Processor', p.processor),
      ...fact('Transaction id', p.transactionId ?? '—'),
      ...fact('Created', when(p.createDate)),
    ),
  );
}
