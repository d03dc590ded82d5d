import { ApiError, call, canChange, money, when } from './api.js';
import type { Customer, CustomerSummary, Page, PaymentRequest, Session } from '../../shared/api-types.js';
import { announce, button, field, h, message, nextPageButton, replaceContent, table } from './ui.js';
import { requestLink, statusBadge } from './payment-facts.js';

/** The list's search: GET /customers filters by exact e-mail or by the merchant's own memberId. */
interface Search {
  by: 'email' | 'memberId';
  value: string;
}

const PAGE_SIZE = 20;
const VIEWER_NOTE = 'Viewers can read customers but not create or edit them.';

/** #/customers (list), #/customers/new, #/customers/{id} (detail) and #/customers/{id}/edit. */
export async function renderCustomers(root: HTMLElement, session: Session, hash: string): Promise<void> {
  const [, id, edit] = /^#\/customers\/(\d+|new)(\/edit)?$/.exec(hash) ?? [];
  if (id === undefined) return renderList(root, session);
  if ((id === 'new' || edit) && !canChange(session)) {
    replaceContent(root, h('h1', {}, 'Customers'), message('info', VIEWER_NOTE));
    return;
  }
  if (id === 'new') return replaceContent(root, backLink(), customerForm());
  const customer = await call<Customer>('GET', `/customers/${id}`);
  if (edit) return replaceContent(root, backLink(customer), customerForm(customer));
  return renderDetail(root, session, customer.id);
}

const backLink = (customer?: Customer) =>
  h(
    'p',
    {},
    customer
      ? h('a', { href: `#/customers/${customer.id}` }, `← ${customer.name}`)
      : h('a', { href: '#/customers' }, '← Customers'),
  );

const deposits = (c: Customer) =>
  Object.entries(c.depositsByCurrency)
    .map(([currency, amount]) => money(amount, currency))
    .join(', ') || '—';

async function renderList(root: HTMLElement, session: Session, search?: Search, cursor?: string): Promise<void> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (search) query.set(search.by, search.value);
  if (cursor) query.set('cursor', cursor);
  const page = await call<Page<Customer>>('GET', `/customers?${query}`);
  const rows = page.data.map((c) => [
    h('a', { href: `#/customers/${c.id}` }, c.name),
    c.email,
    c.memberId ?? '—',
    deposits(c),
    when(c.createDate),
  ]);
  const found = search ? `Customers whose ${search.by === 'email' ? 'e-mail' : 'member id'} is ${search.value}` : '';
  replaceContent(
    root,
    h('h1', { id: 'customers-title', tabindex: '-1' }, 'Customers'),
    canChange(session) ? h('p', {}, h('a', { href: '#/customers/new', class: 'button' }, 'New customer')) : null,
    searchForm(search, (next) => renderList(root, session, next)),
    rows.length
      ? table(found || 'Customers, newest first', ['Name', 'E-mail', 'Member id', 'Net paid', 'Created'], rows)
      : h('p', { role: 'status' }, search ? `No customer found. ${found}.` : 'No customers in this mode yet.'),
    nextPageButton('Next page', page, (next) => renderList(root, session, search, next), 'customers-title'),
  );
}

function searchForm(current: Search | undefined, run: (search?: Search) => Promise<void>): HTMLElement {
  const by = h(
    'select',
    { id: 'customer-search-by' },
    h('option', { value: 'email' }, 'E-mail'),
    h('option', { value: 'memberId' }, 'Member id'),
  );
  by.value = current?.by ?? 'email';
  const value = h('input', { type: 'search', id: 'customer-search', value: current?.value });
  const feedback = h('div', { class: 'feedback' });
  // The list is drawn anew around the form: the focus goes back to the search box.
  const go = (search?: Search) =>
    run(search).then(
      () => document.getElementById('customer-search')?.focus(),
      (error: Error) => replaceContent(feedback, message('error', error.message)),
    );
  const form = h(
    'form',
    { role: 'search', class: 'inline', 'aria-label': 'Search customers', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: by.id }, 'Search by'), by),
    field('Search for', value, 'The exact e-mail address or member id.'),
    h('button', { type: 'submit' }, 'Search'),
    current ? button('Show all', () => go()) : null,
    feedback,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = value.value.trim();
    void go(text ? { by: by.value as Search['by'], value: text } : undefined);
  });
  return form;
}

/** The record, its payment requests counted and summed per currency, and the requests themselves. */
async function renderDetail(root: HTMLElement, session: Session, id: number): Promise<void> {
  const summary = await call<CustomerSummary>('GET', `/customers/${id}/summary`);
  const { customer } = summary;
  const requests = h('section', { 'aria-labelledby': 'requests-title' });
  const facts: Array<[string, string]> = [
    ['E-mail', customer.email],
    ['Phone', customer.phone ?? '—'],
    ['Address', customer.address ?? '—'],
    ['Member id', customer.memberId ?? '—'],
    ['Created', when(customer.createDate)],
  ];
  replaceContent(
    root,
    backLink(),
    h('h1', { tabindex: '-1' }, customer.name),
    canChange(session)
      ? h('p', {}, h('a', { href: `#/customers/${id}/edit`, class: 'button' }, 'Edit customer'))
      : null,
    h('dl', { class: 'facts' }, ...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
    h('h2', {}, 'Totals'),
    summary.totals.length
      ? table(
          `Payment requests of ${customer.name} per currency`,
          ['Currency', 'Requests', 'Requested', 'Paid', 'Refunded', 'Net'],
          summary.totals.map((t) => [
            t.currency,
            String(t.count),
            money(t.amount, t.currency),
            money(t.amountPaid, t.currency),
            money(t.amountRefunded, t.currency),
            money(t.net, t.currency),
          ]),
        )
      : h('p', {}, 'No payment request names this customer yet.'),
    requests,
  );
  await renderRequests(requests, customer);
}

async function renderRequests(section: HTMLElement, customer: Customer, cursor?: string): Promise<void> {
  const query = new URLSearchParams({ customerId: String(customer.id), limit: String(PAGE_SIZE) });
  if (cursor) query.set('cursor', cursor);
  const page = await call<Page<PaymentRequest>>('GET', `/payment-requests?${query}`);
  replaceContent(
    section,
    h('h2', { id: 'requests-title', tabindex: '-1' }, 'Payment requests'),
    page.data.length
      ? table(
          `Payment requests of ${customer.name}, newest first`,
          ['Id', 'Reference', 'Amount', 'Status', 'Created'],
          page.data.map((r) => [
            requestLink(r.paymentRequestId),
            r.reference,
            money(r.amount, r.currency),
            statusBadge(r.status),
            when(r.createDate),
          ]),
        )
      : h('p', {}, cursor ? 'No more payment requests.' : 'None yet.'),
    nextPageButton(
      'Next page of payment requests',
      page,
      (next) => renderRequests(section, customer, next),
      'requests-title',
    ),
  );
}

const FIELDS = [
  { name: 'name', label: 'Name', type: 'text', autocomplete: 'name' },
  { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email' },
  { name: 'phone', label: 'Phone', type: 'tel', autocomplete: 'tel', hint: 'Digits only, country code included.' },
  { name: 'address', label: 'Address', type: 'text', autocomplete: 'street-address' },
  { name: 'memberId', label: 'Member id', type: 'text', hint: 'Your own id for this customer; unique per mode.' },
] as const;
type FieldName = (typeof FIELDS)[number]['name'];
const REQUIRED: FieldName[] = ['name', 'email'];

/**
 * Create (POST /customers) or edit (PATCH /customers/{id}). The API validates; its message is shown
 * above the form and next to the field it names, which is marked invalid and focused.
 */
function customerForm(existing?: Customer): HTMLElement {
  const inputs = new Map<FieldName, HTMLInputElement>();
  const errors = new Map<FieldName, HTMLElement>();
  const feedback = h('div', { class: 'feedback' });
  const title = existing ? `Edit ${existing.name}` : 'New customer';
  const heading = h('h1', { id: 'customer-form-title', tabindex: '-1' }, title);
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'customer-form-title' },
    heading,
    feedback,
    ...FIELDS.map((spec) => {
      const input = h('input', {
        type: spec.type,
        id: `customer-${spec.name}`,
        autocomplete: 'autocomplete' in spec ? spec.autocomplete : 'off',
        'aria-required': REQUIRED.includes(spec.name) ? 'true' : undefined,
      });
      input.value = existing?.[spec.name] ?? '';
      inputs.set(spec.name, input);
      const wrapper = field(
        REQUIRED.includes(spec.name) ? `${spec.label} (required)` : spec.label,
        input,
        'hint' in spec ? spec.hint : undefined,
      );
      const error = h('p', { class: 'field-error', id: `customer-${spec.name}-error`, hidden: true });
      errors.set(spec.name, error);
      wrapper.append(error);
      return wrapper;
    }),
    h('button', { type: 'submit' }, existing ? 'Save customer' : 'Create customer'),
  );
  const clearErrors = () => {
    replaceContent(feedback);
    for (const [name, error] of errors) {
      error.hidden = true;
      error.textContent = '';
      const input = inputs.get(name)!;
      input.removeAttribute('aria-invalid');
      const hint = input.getAttribute('aria-describedby')?.replace(error.id, '').trim();
      if (hint) input.setAttribute('aria-describedby', hint);
      else input.removeAttribute('aria-describedby');
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors();
    const value = (name: FieldName) => inputs.get(name)!.value.trim();
    // Optional fields left empty: absent on create, cleared (null) on edit.
    const entries = FIELDS.map(({ name }): [FieldName, string | null] => [
      name,
      REQUIRED.includes(name) || value(name) ? value(name) : null,
    ]);
    const body = Object.fromEntries(entries.filter(([, v]) => existing || v !== null));
    const saved = existing
      ? call<Customer>('PATCH', `/customers/${existing.id}`, body)
      : call<Customer>('POST', '/customers', body);
    saved.then(
      (customer) => {
        announce(existing ? 'Customer saved.' : 'Customer created.');
        location.hash = `#/customers/${customer.id}`;
      },
      (error: Error) => {
        replaceContent(feedback, message('error', error.message));
        const named = error instanceof ApiError ? fieldsNamed(error) : [];
        for (const name of named) {
          const input = inputs.get(name)!;
          const note = errors.get(name)!;
          note.textContent = error.message;
          note.hidden = false;
          input.setAttribute('aria-invalid', 'true');
          input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), note.id].join(' ').trim());
        }
        (named.length ? inputs.get(named[0])! : heading).focus();
      },
    );
  });
  return form;
}

/** The form fields an API error names: details.field (a bad value, a taken memberId) or details.missingFields. */
function fieldsNamed(error: ApiError): FieldName[] {
  const { field: one, missingFields } = error.details as { field?: unknown; missingFields?: unknown };
  const named = [one, ...(Array.isArray(missingFields) ? (missingFields as unknown[]) : [])];
  return FIELDS.map((f) => f.name).filter((name) => named.includes(name));
}
