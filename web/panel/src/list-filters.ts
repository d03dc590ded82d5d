import { statusLabel } from './payment-facts.js';
import { field, h } from './ui.js';

/**
 * The filters of the payment lists, kept in the address fragment (#/payments?status=paid&currency=EUR…)
 * so a reload or a shared link shows the same list. The fragment holds what the reader typed (dates as
 * days); the API query is derived from it.
 */
export const FILTER_NAMES = [
  'status',
  'from',
  'to',
  'currency',
  'amountFrom',
  'amountTo',
  'reference',
  'customerId',
  'payerEmail',
  'cardLast4',
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
/** The search of the payments list only (GET /payments): a payment has a payer and a card, a request has not. */
export const SEARCH_FILTERS: readonly FilterName[] = ['payerEmail', 'cardLast4'];
export type Filters = Partial<Record<FilterName, string>> & { cursor?: string };

/** The filters (and page cursor) written in a fragment such as "#/payments/attempts?status=failed". */
export function filtersOf(hash: string): Filters {
  const params = new URLSearchParams(hash.split('?')[1] ?? '');
  const filters: Filters = {};
  for (const name of [...FILTER_NAMES, 'cursor'] as const) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** The fragment for a list path and its filters; empty ones are left out. */
export function hashOf(base: string, filters: Filters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}

/**
 * The API's query for these filters: a day range becomes the instants of the reader's own midnight
 * (from, inclusive) to the end of the last day (to, inclusive); the amount stays in major units, as the
 * API takes it with its currency. A value the browser cannot read as a day goes as typed, so the API's
 * own error names it.
 */
export function apiQuery(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  const day = (value: string, time: string) => {
    const instant = new Date(`${value}T${time}`);
    return Number.isNaN(instant.getTime()) ? value : instant.toISOString();
  };
  if (filters.status) query.set('status', filters.status);
  if (filters.from) query.set('createdFrom', day(filters.from, '00:00:00'));
  if (filters.to) query.set('createdTo', day(filters.to, '23:59:59.999'));
  if (filters.currency) query.set('currency', filters.currency.toUpperCase());
  if (filters.amountFrom) query.set('amountFrom', filters.amountFrom.replace(',', '.'));
  if (filters.amountTo) query.set('amountTo', filters.amountTo.replace(',', '.'));
  if (filters.reference) query.set('reference', filters.reference);
  if (filters.customerId) query.set('customerId', filters.customerId);
  if (filters.payerEmail) query.set('payerEmail', filters.payerEmail);
  if (filters.cardLast4) query.set('cardLast4', filters.cardLast4);
  return query;
}

/** Which form field an API error's `details.field` names. */
const FIELD_OF_PARAM: Record<string, FilterName> = {
  status: 'status',
  createdFrom: 'from',
  createdTo: 'to',
  currency: 'currency',
  amountFrom: 'amountFrom',
  amountTo: 'amountTo',
  reference: 'reference',
  customerId: 'customerId',
  payerEmail: 'payerEmail',
  cardLast4: 'cardLast4',
};
export const filterOfParam = (param: unknown) => (typeof param === 'string' ? FIELD_OF_PARAM[param] : undefined);

/** The filter form: labelled fields, submitted with Enter or the button; `apply` gets the new filters. */
export function filterForm(
  label: string,
  statuses: readonly string[],
  search: readonly FilterName[],
  filters: Filters,
  apply: (next: Filters) => void,
): HTMLFormElement {
  const input = (name: FilterName, attrs: Record<string, string> = {}) =>
    h('input', { type: 'text', id: `filter-${name}`, name, value: filters[name] ?? '', ...attrs });
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, 'Any'),
    ...statuses.map((s) => h('option', { value: s, selected: filters.status === s }, statusLabel(s))),
  );
  const searchFields = {
    payerEmail: () =>
      field('Payer e-mail', input('payerEmail', { type: 'email', autocomplete: 'off' }), 'The exact address, any case'),
    cardLast4: () =>
      field(
        'Card last 4',
        input('cardLast4', { inputmode: 'numeric', maxlength: '4', pattern: '[0-9]{4}', autocomplete: 'off' }),
        'With an e-mail or reference, or dates at most 31 days apart',
      ),
  } as Partial<Record<FilterName, () => HTMLElement>>;
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': label, novalidate: true },
    field('Status', status),
    field('Created from', input('from', { type: 'date' })),
    field('Created to', input('to', { type: 'date' })),
    field('Currency', input('currency', { maxlength: '3', autocomplete: 'off' }), 'Needed with an amount, e.g. EUR'),
    field('Amount from', input('amountFrom', { inputmode: 'decimal' }), 'Major units, e.g. 10.50'),
    field('Amount to', input('amountTo', { inputmode: 'decimal' })),
    field('Reference', input('reference'), 'The exact reference'),
    field('Customer id', input('customerId', { inputmode: 'numeric' })),
    ...search.map((name) => searchFields[name]?.()),
    h(
      'div',
      { class: 'filter-actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset' }, 'Clear filters'),
    ),
  );
  const read = () => {
    const data = new FormData(form);
    const next: Filters = {};
    for (const name of FILTER_NAMES) {
      const value = data.get(name);
      if (typeof value === 'string' && value.trim()) next[name] = value.trim();
    }
    return next;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply(read());
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    apply({});
  });
  return form;
}

/** Marks the field an API error is about, and ties the error message to it for screen readers. */
export function markInvalid(form: HTMLFormElement, name: FilterName | undefined, messageId: string): void {
  const input = name && form.querySelector<HTMLElement>(`#filter-${name}`);
  if (!input) return;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', `${input.getAttribute('aria-describedby') ?? ''} ${messageId}`.trim());
}
