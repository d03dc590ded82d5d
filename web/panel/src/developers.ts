import { call, canChange, when } from './api.js';
import type {
  CheckoutSessionGrant,
  EventDetail,
  EventSummary,
  Notice,
  Page,
  PaymentRequest,
  ReceivedCallback,
  Session,
  Settings,
  TestEventDelivery,
} from '../../shared/api-types.js';
import { renderFailedJobs } from './failed-jobs.js';
import { button, field, h, message, nextPageButton, replaceContent, table } from './ui.js';

/**
 * Developers: events and their deliveries (re-send), a test event sent to the notification URL,
 * received provider and test callbacks with their signature result, e-mail notices, failed jobs
 * (retry), and a test payment on the hosted checkout.
 */
export async function renderDevelopers(root: HTMLElement, session: Session): Promise<void> {
  const [events, notices, settings] = await Promise.all([
    call<Page<EventSummary>>('GET', '/events?limit=20'),
    call<Page<Notice>>('GET', '/notices?limit=20'),
    call<Settings>('GET', '/settings'),
  ]);
  const detail = h('div', { class: 'detail' });
  const callbacks = h('section', { 'aria-labelledby': 'callbacks-title' });
  const failedJobs = h('section', { 'aria-labelledby': 'failed-jobs-title' });
  const eventRows = events.data.map((event) => [
    h('code', {}, event.id),
    event.type,
    when(event.created),
    button('Deliveries', () => showEvent(detail, event.id), { 'aria-label': `Deliveries of ${event.id}` }),
  ]);
  replaceContent(
    root,
    h('h1', {}, 'Developers'),
    testPayment(session),
    canChange(session) ? testEvent(settings) : null,
    h('h2', {}, 'Events'),
    events.data.length
      ? table('Events, newest first', ['Event', 'Type', 'Created', ''], eventRows)
      : h('p', {}, 'No events yet.'),
    detail,
    callbacks,
    h('h2', {}, 'E-mail notices'),
    notices.data.length
      ? table(
          'E-mail notices sent to your users',
          ['Sent', 'To', 'Subject', 'Kind'],
          notices.data.map((n) => [when(n.at), n.to, n.subject, n.kind]),
        )
      : h('p', {}, 'No notices yet.'),
    failedJobs,
  );
  await Promise.all([renderCallbacks(callbacks), renderFailedJobs(failedJobs, session)]);
}

const SIGNATURE: Record<string, string> = { true: 'Valid', false: 'Invalid', null: 'Not signed' };

/** GET /callback-events: provider callbacks about this mode's payments and test calls sent with its key. */
async function renderCallbacks(section: HTMLElement, cursor?: string): Promise<void> {
  const page = await call<Page<ReceivedCallback>>(
    'GET',
    `/callback-events?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  const rows = page.data.map((c) => [
    when(c.receivedAt),
    c.source,
    h('code', {}, c.eventId ?? c.transactionId ?? '—'),
    c.status ?? '—',
    h('span', { class: `signature signature-${c.signatureValid}` }, SIGNATURE[String(c.signatureValid)]),
    c.processingError ?? (c.processedAt ? `Processed ${when(c.processedAt)}` : '—'),
  ]);
  replaceContent(
    section,
    h('h2', { id: 'callbacks-title', tabindex: '-1' }, 'Received callbacks'),
    rows.length
      ? table(
          'Provider callbacks and test callbacks, newest first',
          ['Received', 'Source', 'Event', 'Status', 'Signature', 'Processing'],
          rows,
        )
      : h('p', {}, cursor ? 'No more callbacks.' : 'No callbacks received yet.'),
    nextPageButton('Next page of callbacks', page, (next) => renderCallbacks(section, next), 'callbacks-title'),
  );
}

async function showEvent(detail: HTMLElement, id: string): Promise<void> {
  const event = await call<EventDetail>('GET', `/events/${id}`);
  const feedback = h('div', { class: 'feedback' });
  const resend = button('Re-send', async () => {
    try {
      await call('POST', `/events/${id}/resend`);
      replaceContent(feedback, message('success', `${id} is queued for delivery.`));
    } catch (error) {
      replaceContent(feedback, message('error', (error as Error).message));
    }
  });
  const rows = event.attempts.map((a) => [
    when(a.at),
    a.url,
    a.statusCode === null ? 'No answer' : String(a.statusCode),
    `${a.durationMs} ms`,
    a.error?.message ?? '',
  ]);
  replaceContent(
    detail,
    h('h3', { tabindex: '-1', id: 'event-title' }, `${event.type} (${id})`),
    h('p', {}, `Pending deliveries: ${event.pendingDeliveries}`),
    rows.length
      ? table(`Delivery attempts of ${id}`, ['At', 'URL', 'Status', 'Time', 'Error'], rows)
      : h('p', {}, 'No attempt yet.'),
    resend,
    feedback,
  );
  document.getElementById('event-title')?.focus();
}

/** Always in test mode: creates a payment request and opens it on the hosted checkout in a new tab. */
function testPayment(session: Session): HTMLElement {
  const amount = h('input', { type: 'text', inputmode: 'decimal', value: '10.00' });
  const currency = h('input', { type: 'text', value: 'EUR', maxlength: '3', autocapitalize: 'characters' });
  const feedback = h('div', { class: 'feedback' });
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'test-payment-title' },
    h('h2', { id: 'test-payment-title' }, 'Create a test payment request'),
    h('div', { class: 'row' }, field('Amount', amount), field('Currency', currency)),
    h('button', { type: 'submit' }, 'Create and open the checkout'),
    feedback,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // Opened now, inside the click, so no pop-up blocker stops it; pointed at the checkout once it exists.
    const tab = window.open('about:blank', '_blank');
    void (async () => {
      try {
        const created = await call<PaymentRequest>(
          'POST',
          '/payment-requests',
          {
            amount: Number(amount.value),
            currency: currency.value.toUpperCase(),
            reference: `panel-test-${Date.now()}`,
          },
          { mode: 'test' },
        );
        const id = created.paymentRequestId;
        const minted = await call<CheckoutSessionGrant>(
          'POST',
          `/payment-requests/${id}/checkout-session`,
          {},
          { mode: 'test' },
        );
        const url = `${session.checkoutUrl}/main?requestId=${id}&token=${encodeURIComponent(minted.token)}`;
        if (tab) {
          tab.opener = null;
          tab.location.href = url;
        }
        replaceContent(
          feedback,
          message('success', `Test payment request ${id} created.`),
          h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open its checkout'),
        );
      } catch (error) {
        tab?.close();
        replaceContent(feedback, message('error', (error as Error).message));
      }
    })();
  });
  return form;
}

/**
 * POST /events/test: a signed sample event of the chosen type to this mode's notification URL, sent
 * at once; the receiver's answer is shown (the gateway keeps no record of it).
 */
function testEvent(settings: Settings): HTMLElement {
  const type = h('select', {}, ...settings.availableEventTypes.map((t) => h('option', { value: t }, t)));
  const feedback = h('div', { class: 'feedback' });
  const send = h('button', { type: 'submit' }, 'Send test event');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'test-event-title' },
    h('h2', { id: 'test-event-title' }, 'Send a test event'),
    h(
      'p',
      { class: 'hint' },
      settings.notifyUrl
        ? `A signed sample event goes to ${settings.notifyUrl} now. It is marked as a test (its id starts evt_test_ and "test" is true) and is not kept in the events below.`
        : 'Set a notification URL in Settings first: test events go there.',
    ),
    field('Event type', type),
    send,
    feedback,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send.disabled = true;
    replaceContent(feedback, message('info', `Sending a ${type.value} test event…`));
    void (async () => {
      try {
        const outcome = await call<TestEventDelivery>('POST', '/events/test', { type: type.value });
        const answer = outcome.statusCode === null ? 'no answer' : `HTTP ${outcome.statusCode}`;
        replaceContent(
          feedback,
          outcome.delivered
            ? message('success', `Delivered ${outcome.id} to ${outcome.url}: ${answer} in ${outcome.durationMs} ms.`)
            : message(
                'error',
                `Not delivered to ${outcome.url}: ${answer} (${outcome.error?.message ?? 'not accepted'}).`,
              ),
        );
      } catch (error) {
        replaceContent(feedback, message('error', (error as Error).message));
      } finally {
        send.disabled = false;
      }
    })();
  });
  return form;
}
