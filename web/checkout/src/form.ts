import {
  brandOf,
  cardNumberError,
  cvvError,
  digitsOf,
  expiryError,
  expiryForApi,
  formatCardNumber,
  formatExpiry,
} from './card.js';
import type { Payer } from '../../shared/api-types.js';
import { h } from '../../shared/dom.js';

/** What the form hands over on a valid submit: the h2h body's card and payer fields. */
export interface CardSubmission extends Payer {
  number: string;
  expiration: string;
  cvv: string;
}

const PAYER_FIELD_NAMES: readonly (keyof Payer)[] = [
  'name',
  'email',
  'phoneNumber',
  'address',
  'city',
  'state',
  'postalCode',
  'country',
];

/**
 * The payer fields of a submission, which the payment bodies require: those the merchant gave (the payment
 * request's `payer`), never asked, and the payer's answers to the rest, tidied as the API wants them.
 */
export function payerOf(known: Partial<Payer>, answer: (name: keyof Payer) => string): Payer {
  const tidy = (name: keyof Payer, value: string) =>
    name === 'phoneNumber' ? digitsOf(value) : name === 'country' ? value.trim().toUpperCase() : value.trim();
  const payer = {} as Payer;
  for (const name of PAYER_FIELD_NAMES) payer[name] = known[name] ?? tidy(name, answer(name));
  return payer;
}

/** A field the page asks: any but the payer fields the merchant gave. */
export const asked =
  (known: Partial<Payer>) =>
  (field: { name: string }): boolean =>
    known[field.name as keyof Payer] === undefined;

export interface Field {
  name: keyof CardSubmission;
  label: string;
  autocomplete: string;
  inputmode?: string;
  type?: string;
  maxlength?: number;
  placeholder?: string;
  /** The message to show, or null when the value is fine. */
  check: (value: string, all: Record<string, string>) => string | null;
}

export const attentionNeeded = (count: number) =>
  count === 1 ? 'One field needs attention.' : `${count} fields need attention.`;

export const emailError = (value: string): string | null =>
  /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()) ? null : 'Enter a valid email address.';

const required = (what: string) => (value: string) => (value.trim() ? null : `Enter ${what}.`);

// Bounds from the spec's payer fields (name ≤ 100, phone 10-14 digits with country code, …).
const FIELDS: Field[] = [
  {
    name: 'number',
    label: 'Card number',
    autocomplete: 'cc-number',
    inputmode: 'numeric',
    maxlength: 23,
    placeholder: '1234 1234 1234 1234',
    check: cardNumberError,
  },
  {
    name: 'expiration',
    label: 'Expiry date (MM / YY)',
    autocomplete: 'cc-exp',
    inputmode: 'numeric',
    maxlength: 7,
    placeholder: 'MM / YY',
    check: (value) => expiryError(value, new Date()),
  },
  {
    name: 'cvv',
    label: 'Security code (CVV)',
    autocomplete: 'cc-csc',
    inputmode: 'numeric',
    maxlength: 4,
    check: (value, all) => cvvError(value, all.number),
  },
  {
    name: 'name',
    label: 'Name on card',
    autocomplete: 'cc-name',
    maxlength: 100,
    check: required('the name on the card'),
  },
  {
    name: 'email',
    label: 'Email',
    autocomplete: 'email',
    type: 'email',
    maxlength: 100,
    check: emailError,
  },
  {
    name: 'phoneNumber',
    label: 'Phone, with country code',
    autocomplete: 'tel',
    type: 'tel',
    inputmode: 'tel',
    maxlength: 18,
    check: (value) =>
      /^\d{10,14}$/.test(digitsOf(value)) ? null : 'Enter 10 to 14 digits, starting with the country code.',
  },
  { name: 'address', label: 'Address', autocomplete: 'address-line1', maxlength: 100, check: required('your address') },
  { name: 'city', label: 'City', autocomplete: 'address-level2', maxlength: 50, check: required('your city') },
  {
    name: 'state',
    label: 'State or region',
    autocomplete: 'address-level1',
    maxlength: 50,
    check: required('your state or region'),
  },
  {
    name: 'postalCode',
    label: 'Postal code',
    autocomplete: 'postal-code',
    maxlength: 10,
    check: required('your postal code'),
  },
  {
    name: 'country',
    label: 'Country code (2 letters)',
    autocomplete: 'country',
    maxlength: 2,
    check: (value) => (/^[A-Za-z]{2}$/.test(value.trim()) ? null : 'Enter the two-letter country code, like US or IN.'),
  },
];

/** The payer's contact and address fields after the name (the UPI panel asks them too). */
export const PAYER_CONTACT_FIELDS = FIELDS.slice(FIELDS.findIndex((field) => field.name === 'email'));

/**
 * The card form: grouping and brand as the payer types, every check inline before anything is sent,
 * errors tied to their inputs (aria-describedby), on submit the first one focused (so read out) and
 * the number of them announced. The payer fields the merchant gave are not asked.
 */
export function cardForm(options: {
  payLabel: string;
  /** The country field's default (country.ts), when the merchant gave no country. */
  country: string;
  /** The payer fields the merchant gave: not shown, sent as given. */
  known: Partial<Payer>;
  announce: (message: string) => void;
  onSubmit: (card: CardSubmission) => void;
}): { element: HTMLFormElement; clearCard(): void; focusCard(): void } {
  const inputs = new Map<keyof CardSubmission, HTMLInputElement>();
  const errors = new Map<keyof CardSubmission, HTMLElement>();
  const brand = h('span', { class: 'brand', id: 'card-brand', 'aria-live': 'polite' });

  const values = () =>
    Object.fromEntries([...inputs].map(([name, input]) => [name, input.value])) as Record<string, string>;

  const showError = (field: Field, message: string | null) => {
    const input = inputs.get(field.name)!;
    errors.get(field.name)!.textContent = message ?? '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };

  const fields = FIELDS.filter(asked(options.known));
  const rows = fields.map((field) => {
    const id = `f-${field.name}`;
    const input = h('input', {
      id,
      name: field.name,
      autocomplete: field.autocomplete,
      type: field.type ?? 'text',
      inputmode: field.inputmode,
      maxlength: field.maxlength === undefined ? undefined : String(field.maxlength),
      placeholder: field.placeholder,
      required: true,
      spellcheck: 'false',
      'aria-describedby': `${id}-error${field.name === 'number' ? ' card-brand' : ''}`,
    });
    if (field.name === 'country') input.value = options.country;
    inputs.set(field.name, input);
    const error = h('p', { class: 'field-error', id: `${id}-error` });
    errors.set(field.name, error);
    input.addEventListener('blur', () => {
      if (input.value) showError(field, field.check(input.value, values()));
    });
    input.addEventListener('input', (event) => {
      if (field.name === 'number') {
        input.value = formatCardNumber(input.value);
        const detected = brandOf(digitsOf(input.value));
        brand.textContent = digitsOf(input.value).length >= 2 && detected.name !== 'unknown' ? detected.label : '';
        inputs.get('cvv')!.maxLength = detected.cvvLength;
      }
      if (field.name === 'expiration')
        input.value = formatExpiry(input.value, (event as InputEvent).inputType?.startsWith('delete'));
      if (field.name === 'cvv') input.value = digitsOf(input.value);
      // A fixed error clears as soon as the value is right; a new one waits for blur or submit.
      if (input.getAttribute('aria-invalid') && !field.check(input.value, values())) showError(field, null);
    });
    return h(
      'div',
      { class: `field field-${field.name}` },
      h('label', { for: id }, field.label),
      field.name === 'number' ? h('div', { class: 'with-brand' }, input, brand) : input,
      error,
    );
  });

  const form = h(
    'form',
    { novalidate: true, 'aria-label': 'Pay by card' },
    ...rows,
    h('button', { type: 'submit', class: 'pay' }, options.payLabel),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const all = values();
    const failed = fields.map((field) => [field, field.check(all[field.name], all)] as const).filter(([, m]) => m);
    for (const field of fields) showError(field, field.check(all[field.name], all));
    if (failed.length) {
      // The first field's own error is read with it as it takes focus (aria-describedby); the live region
      // only counts, so the words of an error are in the page once.
      options.announce(attentionNeeded(failed.length));
      inputs.get(failed[0][0].name)!.focus();
      return;
    }
    options.onSubmit({
      number: digitsOf(all.number),
      expiration: expiryForApi(all.expiration),
      cvv: all.cvv,
      ...payerOf(options.known, (name) => all[name]),
    });
  });
  return {
    element: form,
    // Another card: the card fields empty, the payer's details kept.
    clearCard() {
      for (const name of ['number', 'expiration', 'cvv'] as const) inputs.get(name)!.value = '';
      brand.textContent = '';
    },
    focusCard: () => inputs.get('number')!.focus(),
  };
}
