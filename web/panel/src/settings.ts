import { call, canChange, when } from './api.js';
import type { NewWebhookSecret, Session, Settings } from '../../shared/api-types.js';
import { button, field, h, message, replaceContent, shownOnce } from './ui.js';

/** Settings of the current mode, over GET/PATCH /settings and POST /settings/webhook-secret. */
export async function renderSettings(root: HTMLElement, session: Session): Promise<void> {
  const settings = await call<Settings>('GET', '/settings');
  const businessName = h('input', { type: 'text', maxlength: '100', autocomplete: 'organization' });
  businessName.value = settings.businessName ?? '';
  const notifyUrl = h('input', { type: 'url', inputmode: 'url', placeholder: 'https://shop.example/webhooks' });
  notifyUrl.value = settings.notifyUrl ?? '';
  const origins = h('textarea', { rows: '3' });
  origins.value = settings.checkoutOrigins.join('\n');
  const allTypes = h('input', { type: 'checkbox', id: 'all-types' });
  allTypes.checked = settings.eventTypes === null;
  const typeBoxes = settings.availableEventTypes.map((type) => {
    const box = h('input', { type: 'checkbox', id: `type-${type}`, value: type });
    box.checked = settings.eventTypes === null || settings.eventTypes.includes(type);
    box.disabled = allTypes.checked;
    return box;
  });
  allTypes.addEventListener('change', () => typeBoxes.forEach((box) => (box.disabled = allTypes.checked)));
  const feedback = h('div', { class: 'feedback' });
  const form = h(
    'form',
    { novalidate: true },
    field('Business name', businessName, 'Shown to payers on the hosted checkout.'),
    field('Default notification URL', notifyUrl, 'Events are sent here when a payment names no notifyUrl.'),
    field('Allowed checkout origins', origins, 'One exact origin per line, e.g. https://shop.example.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Event types to receive'),
      h('div', { class: 'check' }, allTypes, h('label', { for: 'all-types' }, 'All event types')),
      ...typeBoxes.map((box) => h('div', { class: 'check' }, box, h('label', { for: box.id }, box.value))),
    ),
    feedback,
    canChange(session) ? h('button', { type: 'submit' }, 'Save settings') : null,
  );
  // A viewer sees the settings but cannot change them.
  if (!canChange(session)) form.querySelectorAll('input, textarea').forEach((el) => el.setAttribute('disabled', ''));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = {
      businessName: businessName.value.trim() || null,
      notifyUrl: notifyUrl.value.trim() || null,
      checkoutOrigins: origins.value
        .split(/\s+/)
        .map((o) => o.trim())
        .filter(Boolean),
      eventTypes: allTypes.checked ? null : typeBoxes.filter((b) => b.checked).map((b) => b.value),
    };
    call<Settings>('PATCH', '/settings', body).then(
      () => replaceContent(feedback, message('success', 'Settings saved.')),
      (error: Error) => replaceContent(feedback, message('error', error.message)),
    );
  });

  const secretArea = h('div', { class: 'feedback' });
  const rotate = button('Rotate signing secret', async () => {
    if (!confirm('Create a new webhook signing secret? The previous one keeps signing for 24 hours.')) return;
    try {
      const created = await call<NewWebhookSecret>('POST', '/settings/webhook-secret');
      replaceContent(
        secretArea,
        shownOnce(
          'New webhook signing secret',
          created.secret,
          `Copy it now: it is shown only once. The previous secret also signs until ${when(created.previousValidUntil)}.`,
        ),
      );
    } catch (error) {
      replaceContent(secretArea, message('error', (error as Error).message));
    }
  });
  replaceContent(
    root,
    h('h1', {}, 'Settings'),
    settings.endpointDisabledAt
      ? message('error', `Deliveries stopped ${when(settings.endpointDisabledAt)}: save the notification URL again.`)
      : null,
    form,
    h(
      'section',
      { 'aria-labelledby': 'secret-title' },
      h('h2', { id: 'secret-title' }, 'Webhook signing secret'),
      h('p', {}, 'Current secret: ', h('code', {}, `${settings.webhookSecretPrefix}…`)),
      canChange(session) ? rotate : null,
      secretArea,
    ),
  );
}
