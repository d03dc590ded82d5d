import { ApiError, call, download, money, when } from './api.js';
import type { ListedPaymentRequest, Page, Payment, PaymentRequest } from '../../shared/api-types.js';
import {
  apiQuery,
  filterForm,
  filterOfParam,
  filtersOf,
  hashOf,
  markInvalid,
  SEARCH_FILTERS,
  type FilterName,
  type Filters,
} from './list-filters.js';
import { methodOf, payerOf, paymentLink, paymentStatus, requestLink, statusBadge } from './payment-facts.js';
import { timelineSection } from './timeline.js';
import { announce, button, field, h, message, replaceContent, table } from './ui.js';

/** The two lists: payment requests (#/payments) and every payment attempt (#/payments/attempts). */
const LISTS = {
  requests: {
    hash: '#/payments',
    path: '/payment-requests',
    title: 'Payment requests',
    statuses: ['open', 'processing', 'authorized', 'paid', 'partially_refunded', 'refunded', 'canceled', 'expired'],
    headers: ['Id', 'Reference', 'Method', 'Payer', 'Amount', 'Paid', 'Refunded', 'Status', 'Created'],
    search: [] as readonly FilterName[],
    // Method and payer are those of the request's last attempt: empty before the first.
    row: (r: ListedPaymentRequest) => [
      requestLink(r.paymentRequestId),
      r.reference,
      r.lastPayment ? methodOf(r.lastPayment) : '',
      r.lastPayment ? payerOf(r.lastPayment) : '',
      money(r.amount, r.currency),
      money(r.amountPaid, r.currency),
      money(r.amountRefunded, r.currency),
      statusBadge(r.status),
      when(r.createDate),
    ],
  },
  attempts: {
    hash: '#/payments/attempts',
    path: '/payments',
    title: 'Payments',
    statuses: ['pending', 'requires_action', 'authorized', 'succeeded', 'failed', 'canceled'],
    headers: [
      'Id',
      'Payment request',
      'Method',
      'Payer',
      'Amount',
      'Captured',
      'Refunded',
      'Status',
      'Decline',
      'Created',
    ],
    search: SEARCH_FILTERS,
    row: (p: Payment) => [
      paymentLink(p.paymentId),
      requestLink(p.paymentRequestId),
      methodOf(p),
      payerOf(p),
      money(p.amount, p.currency),
      money(p.amountCaptured, p.currency),
      money(p.amountRefunded, p.currency),
      paymentStatus(p),
      p.declineReason ?? '',
      when(p.createDate),
    ],
  },
};

/** The filters a list takes: the payment search (payer e-mail, card) is the payments list's only. */
function filtersFor(list: { search: readonly string[] }, filters: Filters): Filters {
  const kept = { ...filters };
  for (const name of SEARCH_FILTERS) if (!list.search.includes(name)) delete kept[name];
  return kept;
}

/**
 * Payment requests or payments of the current mode, newest first, a page at a time, narrowed by the
 * filters of the address fragment; the CSV export downloads the same filtered list, every page of it.
 */
export async function renderPaymentRequests(root: HTMLElement): Promise<void> {
  const hash = location.hash || '#/payments';
  const kind = hash.startsWith(LISTS.attempts.hash) ? 'attempts' : 'requests';
  const list = LISTS[kind];
  const filters = filtersFor(list, filtersOf(hash));
  const { cursor, ...chosen } = filters;
  const filtered = Object.keys(chosen).length > 0;
  const form = filterForm(`Filter ${list.title.toLowerCase()}`, list.statuses, list.search, filters, (next) => {
    location.hash = hashOf(list.hash, next);
  });
  const results = h('div', { id: 'results' });
  const exportFeedback = h('div', { class: 'feedback' });
  const exportCsv = button('Export CSV', async () => {
    replaceContent(exportFeedback, message('info', 'Preparing the CSV export…'));
    try {
      const name = await download(`${list.path}/export/csv?${apiQuery(chosen)}`);
      replaceContent(exportFeedback, message('success', `Downloaded ${name}.`));
    } catch (error) {
      replaceContent(exportFeedback, message('error', `The export failed: ${(error as Error).message}`));
    }
  });
  replaceContent(
    root,
    h('h1', {}, list.title),
    h(
      'nav',
      { 'aria-label': 'Lists', class: 'list-switch' },
      // The statuses and the payment search differ between the lists; the other filters carry over.
      ...Object.values(LISTS).map((other) =>
        h(
          'a',
          {
            href: hashOf(other.hash, filtersFor(other, { ...chosen, status: undefined })),
            'aria-current': other === list ? 'page' : undefined,
          },
          other.title,
        ),
      ),
    ),
    form,
    h('div', { class: 'actions' }, exportCsv),
    exportFeedback,
    results,
  );
  const query = apiQuery(chosen);
  query.set('limit', '20');
  if (cursor) query.set('cursor', cursor);
  let page: Page<ListedPaymentRequest & Payment>;
  try {
    page = await call('GET', `${list.path}?${query}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) throw error;
    const refusal = message('error', `These filters cannot be used: ${error.message}`);
    refusal.id = 'filter-error';
    replaceContent(results, refusal);
    markInvalid(form, filterOfParam(error.details.field), 'filter-error');
    return;
  }
  const caption = `${list.title}${filtered ? ', filtered' : ''}, newest first${cursor ? ' (later page)' : ''}`;
  replaceContent(
    results,
    page.data.length
      ? table(caption, list.headers, page.data.map(list.row))
      : h('p', {}, filtered ? 'Nothing matches these filters.' : 'Nothing in this mode yet.'),
    h(
      'p',
      { class: 'pages' },
      cursor ? h('a', { href: hashOf(list.hash, chosen) }, 'First page') : null,
      page.hasMore && page.nextCursor
        ? h('a', { href: hashOf(list.hash, { ...chosen, cursor: page.nextCursor }) }, 'Next page')
        : null,
    ),
  );
  announce(`${page.data.length}${page.hasMore ? ' or more' : ''} ${list.title.toLowerCase()} shown.`);
}

/** One payment request, its payment attempts and what can be done with them (same rules as the API). */
export async function renderPaymentRequest(root: HTMLElement, id: number, mayChange: boolean): Promise<void> {
  const [request, payments, timeline] = await Promise.all([
    call<PaymentRequest>('GET', `/payment-requests/${id}`),
    call<{ data: Payment[] }>('GET', `/payments?paymentRequestId=${id}`),
    timelineSection(id),
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
      paymentLink(p.paymentId),
      paymentStatus(p),
      methodOf(p),
      payerOf(p),
      money(p.amount, p.currency),
      money(p.amountCaptured, p.currency),
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
      h('dd', {}, statusBadge(request.status)),
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
      ? table(
          `Payments of request ${id}`,
          ['Id', 'Status', 'Method', 'Payer', 'Amount', 'Captured', 'Refunded', 'Decline', 'Actions'],
          rows,
        )
      : h('p', {}, 'No payment attempt yet.'),
    timeline,
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
