import qrcode from 'qrcode-generator';
import './upi.css';
import type { Payer } from '../../shared/api-types.js';
import { ApiError, type CheckoutPayment } from './api.js';
import { h } from '../../shared/dom.js';
import { asked, PAYER_CONTACT_FIELDS, payerOf, type Field as CardField } from './form.js';

/** What the UPI panel sends: the h2h UPI variant's fields (amount and unit are added by the page). */
export type UpiSubmission = { upiFlow: 'collect' | 'intent'; upiId?: string } & Payer;

/** What the panel needs from the page: the API calls with the token, and the page's own outcomes. */
export interface UpiHooks {
  payLabel: string;
  /** The country field's default (country.ts), when the merchant gave no country. */
  country: string;
  /** The payer fields the merchant gave: not shown, sent as given. */
  known: Partial<Payer>;
  /** Test mode: the sandbox payer page is offered as the stand-in for the payer's UPI app. */
  testMode: boolean;
  announce(message: string): void;
  /** Replaces the page's content below the header. */
  show(...nodes: Node[]): void;
  submit(body: UpiSubmission): Promise<CheckoutPayment>;
  /** The payment request's status, read with the checkout token. */
  requestStatus(): Promise<string>;
  succeeded(paymentId: number): void;
  failed(paymentId: number, reason: string): void;
  /** The answer was an error (not a payment): the page shows it and offers the form again. */
  refused(error: unknown): void;
  expired(): void;
}

/** decisions.md "UPI payments": username@bankcode. */
const UPI_ID = /^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9]{1,63}$/;
const POLL_MS = 2000;
const PAID = new Set(['paid', 'authorized', 'partially_refunded', 'refunded']);
const GONE = new Set(['expired', 'canceled']);

/** The card form's field shape, for the UPI ID and the payer fields. */
type Field = Omit<CardField, 'name'> & { name: string };

// The spec requires every payer field for host-to-host UPI: the card form's, with the payer's own name
// (those the merchant gave are not asked).
const FIELDS: Field[] = [
  {
    name: 'upiId',
    label: 'UPI ID (like name@bank)',
    autocomplete: 'off',
    maxlength: 255,
    check: (value) => (UPI_ID.test(value.trim()) ? null : 'Enter your UPI ID as username@bankcode, like jane@okaxis.'),
  },
  {
    name: 'name',
    label: 'Your name',
    autocomplete: 'name',
    maxlength: 100,
    check: (value) => (value.trim() ? null : 'Enter your name.'),
  },
  ...PAYER_CONTACT_FIELDS,
];

/**
 * The UPI panel: a collect (the payer's UPI ID; they approve in their UPI app) or an intent (a QR code
 * of the `upi://pay` link, and on a phone a link that opens the UPI app). Every field is checked before
 * anything is sent; then the page waits for the payer with a countdown, polling the request's status.
 */
export function upiPanel(hooks: UpiHooks): { element: HTMLElement; focus(): void } {
  const inputs = new Map<Field['name'], HTMLInputElement>();
  const errors = new Map<Field['name'], HTMLElement>();
  const flows = (['collect', 'intent'] as const).map((flow, index) => {
    const input = h('input', { type: 'radio', name: 'upi-flow', id: `upi-flow-${flow}`, value: flow });
    input.checked = index === 0;
    input.addEventListener('change', () => (idRow.hidden = flow !== 'collect'));
    const label = flow === 'collect' ? 'UPI ID: approve in your UPI app' : 'QR code: scan with any UPI app';
    return { input, row: h('label', { class: 'method', for: input.id }, input, ` ${label}`) };
  });
  const flow = () => (flows[1].input.checked ? 'intent' : 'collect');
  const fields = FIELDS.filter(asked(hooks.known));
  const active = () => fields.filter((field) => field.name !== 'upiId' || flow() === 'collect');

  const setError = (field: Field, message: string | null) => {
    errors.get(field.name)!.textContent = message ?? '';
    if (message) inputs.get(field.name)!.setAttribute('aria-invalid', 'true');
    else inputs.get(field.name)!.removeAttribute('aria-invalid');
  };
  const rows = fields.map((field) => {
    const id = `upi-${field.name}`;
    const input = h('input', {
      id,
      name: field.name,
      type: field.type ?? 'text',
      autocomplete: field.autocomplete,
      inputmode: field.inputmode,
      maxlength: field.maxlength === undefined ? undefined : String(field.maxlength),
      required: true,
      spellcheck: 'false',
      'aria-describedby': `${id}-error`,
    });
    if (field.name === 'country') input.value = hooks.country;
    input.addEventListener('blur', () => input.value && setError(field, field.check(input.value, {})));
    // A fixed error clears as soon as the value is right; a new one waits for blur or submit.
    input.addEventListener('input', () => {
      if (input.getAttribute('aria-invalid') && !field.check(input.value, {})) setError(field, null);
    });
    inputs.set(field.name, input);
    errors.set(field.name, h('p', { class: 'field-error', id: `${id}-error` }));
    return h('div', { class: 'field' }, h('label', { for: id }, field.label), input, errors.get(field.name));
  });
  const idRow = rows[0];

  const form = h(
    'form',
    { novalidate: true, 'aria-label': 'Pay by UPI' },
    h('fieldset', { class: 'methods' }, h('legend', {}, 'How to pay with UPI'), ...flows.map((f) => f.row)),
    ...rows,
    h('button', { type: 'submit', class: 'pay' }, hooks.payLabel),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields = active();
    const problems = fields.map((field) => [field, field.check(inputs.get(field.name)!.value, {})] as const);
    for (const [field, message] of problems) setError(field, message);
    const first = problems.find(([, message]) => message);
    if (first) {
      hooks.announce(`${first[0].label}: ${first[1]}`);
      inputs.get(first[0].name)!.focus();
      return;
    }
    const value = (name: Field['name']) => inputs.get(name)!.value;
    void pay(hooks, {
      upiFlow: flow(),
      ...(flow() === 'collect' ? { upiId: value('upiId').trim() } : {}),
      ...payerOf(hooks.known, value),
    });
  });
  return { element: form, focus: () => flows[0].input.focus() };
}

async function pay(hooks: UpiHooks, submission: UpiSubmission): Promise<void> {
  hooks.show(h('p', { class: 'status', role: 'status', 'aria-busy': 'true' }, 'Sending the UPI request…'));
  hooks.announce('Sending the UPI request.');
  let payment: CheckoutPayment;
  try {
    payment = await hooks.submit(submission);
  } catch (error) {
    const failed = error instanceof ApiError ? error.failedPayment : null;
    if (failed) return hooks.failed(failed.paymentId, upiFailure);
    return hooks.refused(error);
  }
  if (payment.status === 'succeeded' || payment.status === 'authorized') return hooks.succeeded(payment.paymentId);
  if (payment.status !== 'requires_action') return hooks.failed(payment.paymentId, upiFailure);
  await wait(hooks, payment, submission.upiFlow);
}

const upiFailure =
  'The UPI payment was declined or not completed. Nothing was charged. Try again or choose another way to pay.';

/**
 * The wait for the payer: a countdown to the payment's expiry and a poll of the request's status every
 * 2 s until it is paid, reopened (the attempt failed or expired) or gone. The time left is measured from
 * the gateway's own answer (expiry minus creation), so the payer's clock does not matter.
 */
async function wait(hooks: UpiHooks, payment: CheckoutPayment, flow: UpiSubmission['upiFlow']): Promise<void> {
  const lifetimeMs = payment.upiExpiresAt ? Date.parse(payment.upiExpiresAt) - Date.parse(payment.createDate) : 0;
  const deadline = Date.now() + Math.max(0, lifetimeMs);
  const timer = h('p', { class: 'countdown', role: 'timer', 'aria-live': 'off', id: 'upi-countdown' });
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    timer.textContent = left
      ? `Time left: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
      : 'Time is up. Checking the payment…';
  };
  tick();
  const clock = setInterval(tick, 1000);

  const instructions =
    flow === 'collect'
      ? [h('p', {}, 'Open your UPI app and approve the payment request we sent to your UPI ID.')]
      : intentInstructions(payment, hooks.testMode);
  hooks.show(h('h1', {}, 'Waiting for your UPI approval'), ...instructions, timer);
  hooks.announce(
    `Waiting for your approval in your UPI app. ${Math.round(lifetimeMs / 60000)} minutes left. This page updates by itself.`,
  );

  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const status = await hooks.requestStatus().catch(() => 'processing');
      if (PAID.has(status)) return hooks.succeeded(payment.paymentId);
      if (status === 'open') return hooks.failed(payment.paymentId, upiFailure);
      if (GONE.has(status)) return hooks.expired();
    }
  } finally {
    clearInterval(clock);
  }
}

/** The QR code of the `upi://pay` link; on a phone a link into the UPI app; in test mode the sandbox's payer page. */
function intentInstructions(payment: CheckoutPayment, testMode: boolean): Node[] {
  const link = payment.upiIntentUrl ?? '';
  const phone = window.matchMedia('(pointer: coarse), (max-width: 480px)').matches;
  return [
    h('p', {}, 'Scan this QR code with any UPI app and approve the payment.'),
    qrSvg(link),
    phone ? h('p', {}, h('a', { href: link, class: 'pay upi-open' }, 'Open UPI app')) : null,
    testMode && payment.redirectUrl
      ? h(
          'p',
          {},
          h(
            'a',
            { href: payment.redirectUrl, target: '_blank', rel: 'noopener noreferrer', id: 'upi-payer-page' },
            'Test mode: open the sandbox payer page to approve or decline',
          ),
        )
      : null,
  ].filter((node): node is HTMLParagraphElement | SVGSVGElement => node !== null);
}

/** The link as an SVG QR code: one path of dark modules, drawn here (no image request, nothing third-party). */
function qrSvg(text: string): SVGSVGElement {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const count = qr.getModuleCount();
  const quiet = 4;
  const size = count + quiet * 2;
  let d = '';
  for (let row = 0; row < count; row++)
    for (let col = 0; col < count; col++) if (qr.isDark(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  for (const [name, value] of Object.entries({
    viewBox: `0 0 ${size} ${size}`,
    class: 'upi-qr',
    role: 'img',
    'aria-label': 'QR code of the UPI payment link',
    'shape-rendering': 'crispEdges',
  }))
    svg.setAttribute(name, value);
  const background = document.createElementNS(ns, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const modules = document.createElementNS(ns, 'path');
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  return svg;
}
