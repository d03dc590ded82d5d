import { call, canChange, panel, when } from './api.js';
import type { ProcessorConnection, Session, Settings } from '../../shared/api-types.js';
import { announce, button, field, h, message, replaceContent, table } from './ui.js';

type Processor = ProcessorConnection['processor'];
type Slot = ProcessorConnection['slots'][number];

const SLOTS: Array<{ slot: Slot; label: string }> = [
  { slot: 'acme', label: 'acme (card path)' },
  { slot: 'globex', label: 'globex (card path)' },
  { slot: 'h2h', label: 'h2h (host-to-host and hosted checkout)' },
];

const PROCESSORS: Record<Processor, string> = { stripe: 'Stripe', adyen: 'Adyen', sandbox: 'Built-in sandbox' };

const HEALTH: Record<ProcessorConnection['health'], string> = {
  ok: 'OK',
  degraded: 'Degraded (recent failures)',
  open: 'Paused (circuit open)',
};

/** The credential fields each processor asks for; the Adyen environment is the panel's mode, not asked. */
const CREDENTIAL_FIELDS: Record<Processor, Array<{ name: string; label: string; hint?: string; secret: boolean }>> = {
  stripe: [
    { name: 'secretKey', label: 'Secret key', hint: 'sk_test_… in test mode, sk_live_… in live mode', secret: true },
    { name: 'webhookSecret', label: 'Webhook signing secret', hint: 'whsec_…', secret: true },
  ],
  adyen: [
    { name: 'apiKey', label: 'API key', secret: true },
    { name: 'merchantAccount', label: 'Merchant account', secret: false },
    { name: 'hmacKey', label: 'Webhook HMAC key', secret: true },
  ],
  sandbox: [],
};

/** A group of slot checkboxes, labelled (`short`: the slot's name alone, in a table cell); `key` keeps ids apart. */
function slotPicker(key: string, legend: string, chosen: readonly Slot[], short = false) {
  const boxes = SLOTS.map(({ slot, label: long }) => {
    const label = short ? slot : long;
    const box = h('input', { type: 'checkbox', id: `${key}-${slot}`, value: slot, checked: chosen.includes(slot) });
    return { box, row: h('span', { class: 'inline' }, box, h('label', { for: box.id }, label)) };
  });
  const element = h('fieldset', {}, h('legend', {}, legend), ...boxes.map((b) => b.row));
  const value = () => boxes.filter((b) => b.box.checked).map((b) => b.box.value as Slot);
  return { element, value };
}

const nameOf = (c: ProcessorConnection) => c.name ?? PROCESSORS[c.processor];

/**
 * The merchant's processor connections of the panel's mode (docs/processors.md): every role sees them
 * with their health; owners and developers connect one, change its slots and priority, and remove it
 * (the gateway refuses a viewer, the page does not offer it). Credentials are typed in once and never shown.
 */
export async function renderProcessors(root: HTMLElement, session: Session): Promise<void> {
  const [{ data }, settings] = await Promise.all([
    call<{ data: ProcessorConnection[] }>('GET', '/processor-connections'),
    call<Settings>('GET', '/settings'),
  ]);
  const changes = canChange(session);
  const feedback = h('div', { class: 'feedback' });
  const act = async (work: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await work();
    } catch (error) {
      replaceContent(feedback, message('error', (error as Error).message));
      return;
    }
    await renderProcessors(root, session);
    const after = root.querySelector<HTMLElement>('.feedback');
    if (after) replaceContent(after, message('success', done));
    announce(done);
  };

  const rows = data.map((c, i) => {
    const cells: Array<Node | string> = [nameOf(c), PROCESSORS[c.processor]];
    if (!changes) return [...cells, c.slots.join(', '), String(c.priority), HEALTH[c.health], when(c.createdAt)];
    const slots = slotPicker(`slots-${i}`, `Slots of ${nameOf(c)}`, c.slots, true);
    const priority = h('input', {
      type: 'number',
      step: '1',
      value: String(c.priority),
      'aria-label': `Priority of ${nameOf(c)}`,
      class: 'narrow',
    });
    const save = button(
      'Save',
      () =>
        act(
          () =>
            call('PATCH', `/processor-connections/${c.connectionId}`, {
              slots: slots.value(),
              priority: Number(priority.value),
            }),
          `${nameOf(c)} was saved.`,
        ),
      { 'aria-label': `Save slots and priority of ${nameOf(c)}` },
    );
    const remove = button(
      'Remove',
      async () => {
        if (!confirm(`Remove ${nameOf(c)}? Its slots fall to the next connection (in test mode, the sandbox).`)) return;
        await act(() => call('DELETE', `/processor-connections/${c.connectionId}`), `${nameOf(c)} was removed.`);
      },
      { 'aria-label': `Remove ${nameOf(c)}` },
    );
    return [...cells, slots.element, priority, HEALTH[c.health], when(c.createdAt), h('span', {}, save, remove)];
  });

  const headers = ['Name', 'Processor', 'Slots', 'Priority', 'Health', 'Connected'];
  replaceContent(
    root,
    h('h1', { id: 'processors-title', tabindex: '-1' }, 'Processors'),
    h(
      'p',
      {},
      `Where payments of ${panel.mode} mode go. Each connection serves the slots ticked; among several for a slot, ` +
        'the highest priority is tried first. ' +
        (panel.mode === 'test' ? 'A slot with no connection uses the built-in sandbox.' : ''),
    ),
    feedback,
    data.length
      ? table('Processor connections, highest priority first', changes ? [...headers, ''] : headers, rows)
      : h('p', {}, 'No processor connected in this mode.'),
    changes ? connectForm(act) : null,
    changes ? softDeclinesForm(act, settings.retryDeclineCodes) : null,
  );
}

/** The decline codes retried on the next connection of a slot (settings `retryDeclineCodes`; none by default). */
function softDeclinesForm(act: (work: () => Promise<unknown>, done: string) => Promise<void>, codes: string[]) {
  const input = h('input', {
    type: 'text',
    id: 'retry-decline-codes',
    autocomplete: 'off',
    value: codes.join(', '),
    placeholder: 'e.g. 05, 91',
  });
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'soft-declines-title' },
    field(
      'Decline codes retried on the next connection',
      input,
      'Two-character codes, separated by commas; empty: a decline is final. A retry is a second authorization the issuer sees.',
    ),
    h('button', { type: 'submit' }, 'Save decline codes'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const retryDeclineCodes = input.value
      .split(',')
      .map((code) => code.trim().toUpperCase())
      .filter(Boolean);
    void act(
      () => call('PATCH', '/settings', { retryDeclineCodes }),
      retryDeclineCodes.length ? `Declines ${retryDeclineCodes.join(', ')} are retried.` : 'Declines are final.',
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'soft-declines-title' },
    h('h2', { id: 'soft-declines-title' }, 'Soft declines'),
    form,
  );
}

function connectForm(act: (work: () => Promise<unknown>, done: string) => Promise<void>): HTMLElement {
  const processor = h('select', { id: 'connect-processor' });
  for (const kind of Object.keys(PROCESSORS) as Processor[]) {
    if (kind === 'sandbox' && panel.mode === 'live') continue;
    processor.append(h('option', { value: kind }, PROCESSORS[kind]));
  }
  const name = h('input', { type: 'text', id: 'connect-name', autocomplete: 'off', maxlength: '100' });
  const priority = h('input', { type: 'number', id: 'connect-priority', step: '1', value: '0' });
  const slots = slotPicker('connect-slot', 'Slots it serves', ['acme']);
  const credentials = h('div', {});
  let inputs: Record<string, HTMLInputElement> = {};
  const showCredentials = () => {
    const kind = processor.value as Processor;
    inputs = {};
    const fields = CREDENTIAL_FIELDS[kind].map((f) => {
      const input = h('input', {
        type: f.secret ? 'password' : 'text',
        id: `connect-${f.name}`,
        autocomplete: 'off',
        required: true,
      });
      inputs[f.name] = input;
      return field(f.label, input, f.hint);
    });
    replaceContent(
      credentials,
      ...(fields.length ? fields : [h('p', {}, 'The built-in sandbox takes no credentials.')]),
    );
  };
  processor.addEventListener('change', showCredentials);
  showCredentials();

  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'connect-title' },
    h('div', { class: 'field' }, h('label', { for: 'connect-processor' }, 'Processor'), processor),
    field('Name (optional)', name),
    credentials,
    slots.element,
    field('Priority', priority, 'Higher is tried first among the connections of a slot'),
    h('button', { type: 'submit' }, 'Connect'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const kind = processor.value as Processor;
    const typed = Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, input.value.trim()]));
    const body = {
      processor: kind,
      ...(name.value.trim() ? { name: name.value.trim() } : {}),
      credentials: kind === 'adyen' ? { ...typed, environment: panel.mode } : typed,
      slots: slots.value(),
      priority: Number(priority.value || '0'),
    };
    void act(
      () => call('POST', '/processor-connections', body),
      `${PROCESSORS[kind]} is connected for ${body.slots.join(', ') || 'no slot'}.`,
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'connect-title' },
    h('h2', { id: 'connect-title' }, 'Connect a processor'),
    form,
  );
}
