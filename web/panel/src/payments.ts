import { call, money, when } from './api.js';
import { announce, button, field, h, message, replaceContent, table } from './ui.js';

interface PaymentRequest {
  paymentRequestId: number;
  amount: number;
  currency: string;
  reference: string;
  status: string;
  amountPaid: number;
  amountRefunded: number;
  createDate: string;
}
interface Payment {
  paymentId: number;
  status: string;
  amount: number;
  currency: string;
  amountRefunded: number;
  createDate?: string;
  declineReason: string | null;
}

/** Payment requests of the current mode, newest first, a page at a time. */
export async function renderPaymentRequests(root: HTMLElement, cursor?: string): Promise<void> {
  const page = await call<{ data: PaymentRequest[]; hasMore: boolean; nextCursor: string | null }>(
    'GET',
    `/payment-requests?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  const rows = page.data.map((r) => [
    h('a', { href: `#/payments/${r.paymentRequestId}` }, String(r.paymentRequestId)),
    r.reference,
    money(r.amount, r.currency),
    h('span', { class: `status status-${r.status}` }, r.status),
    when(r.createDate),
  ]);
  replaceContent(
    root,
    h('h1', {}, 'Payment requests'),
    rows.length
      ? table('Payment requests, newest first', ['Id', 'Reference', 'Amount', 'Status', 'Created'], rows)
      : h('p', {}, 'No payment requests in this mode yet.'),
    page.hasMore && page.nextCursor ? button('Next page', () => renderPaymentRequests(root, page.nextCursor!)) : null,
  );
}

/** One payment request, its payment attempts and what can be done with them (same rules as the API). */
export async function renderPaymentRequest(root: HTMLElement, id: number, mayChange: boolean): Promise<void> {
  const [request, payments] = await Promise.all([
    call<PaymentRequest>('GET', `/payment-requests/${id}`),
    call<{ data: Payment[] }>('GET', `/payments?paymentRequestId=${id}`),
  ]);
  const feedback = h('div', { class: 'feedback' });
  const act = (label: string, question: string, path: string, body?: unknown) =>
    button(label, async () => {
      if (!confirm(question)) return;
      try {
        await call('POST', path, body);
        await renderPaymentRequest(root, id, mayChange);
        announce(`${label}: done.`);
      } catch (error) {
        replaceContent(feedback, message('error', (error as Error).message));
      }
    });
  const rows = payments.data.map((p) => {
    const actions: Node[] = [];
    if (mayChange && p.status === 'authorized') {
      actions.push(act('Capture', `Capture ${money(p.amount, p.currency)} now?`, `/payments/${p.paymentId}/capture`));
      actions.push(
        act('Cancel', `Void this authorized payment? The payer is not charged.`, `/payments/${p.paymentId}/cancel`),
      );
    }
    if (mayChange && p.status === 'succeeded' && p.amountRefunded < p.amount)
      actions.push(refundForm(p, feedback, () => renderPaymentRequest(root, id, mayChange)));
    return [
      String(p.paymentId),
      h('span', { class: `status status-${p.status}` }, p.status),
      money(p.amount, p.currency),
      money(p.amountRefunded, p.currency),
      p.declineReason ?? '',
      h('div', { class: 'actions' }, ...actions),
    ];
  });
  replaceContent(
    root,
    h('p', {}, h('a', { href: '#/payments' }, '← Payment requests')),
    h('h1', { tabindex: '-1' }, `Payment request ${id}`),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Reference'),
      h('dd', {}, request.reference),
      h('dt', {}, 'Amount'),
      h('dd', {}, money(request.amount, request.currency)),
      h('dt', {}, 'Status'),
      h('dd', {}, request.status),
      h('dt', {}, 'Paid'),
      h('dd', {}, money(request.amountPaid, request.currency)),
      h('dt', {}, 'Refunded'),
      h('dd', {}, money(request.amountRefunded, request.currency)),
      h('dt', {}, 'Created'),
      h('dd', {}, when(request.createDate)),
    ),
    mayChange && request.status === 'open'
      ? act(
          'Cancel payment request',
          'Cancel this payment request? It can no longer be paid.',
          `/payment-requests/${id}/cancel`,
        )
      : null,
    feedback,
    h('h2', {}, 'Payments'),
    rows.length
      ? table(`Payments of request ${id}`, ['Id', 'Status', 'Amount', 'Refunded', 'Decline', 'Actions'], rows)
      : h('p', {}, 'No payment attempt yet.'),
  );
}

function refundForm(p: Payment, feedback: HTMLElement, done: () => Promise<void>): HTMLElement {
  const left = Math.round((p.amount - p.amountRefunded) * 1000) / 1000;
  const amount = h('input', { type: 'text', inputmode: 'decimal', id: `refund-${p.paymentId}`, value: String(left) });
  const form = h(
    'form',
    { class: 'inline', novalidate: true },
    field(`Refund amount (${p.currency})`, amount),
    h('button', { type: 'submit' }, 'Refund'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = Number(amount.value);
    if (!(value > 0)) {
      replaceContent(feedback, message('error', 'Enter an amount above zero.'));
      return;
    }
    if (!confirm(`Refund ${money(value, p.currency)} of payment ${p.paymentId}?`)) return;
    call('POST', `/payments/${p.paymentId}/refunds`, { amount: value }).then(done, (error: Error) =>
      replaceContent(feedback, message('error', error.message)),
    );
  });
  return form;
}
