import { h } from '../../shared/dom.js';

export { h, replaceContent } from '../../shared/dom.js';

/** Says something to screen-reader users without moving their focus. */
export function announce(text: string): void {
  const announcer = document.getElementById('announcer');
  if (announcer) announcer.textContent = text;
}

/** A message line: role=alert for errors (read at once), role=status for the rest. */
export function message(kind: 'error' | 'info' | 'success', text: string): HTMLElement {
  return h('p', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

export function field(
  label: string,
  input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
  hint?: string,
): HTMLElement {
  const id = input.id || `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  input.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    input,
  );
}

export function button(
  text: string,
  onClick: (event: MouseEvent) => void | Promise<void>,
  attrs: Record<string, string | boolean | undefined> = {},
) {
  const el = h('button', { type: 'button', ...attrs }, text);
  el.addEventListener('click', (event) => void onClick(event));
  return el;
}

/** A table with a caption and header row; rows of cells (strings or nodes). */
export function table(caption: string, headers: string[], rows: Array<Array<Node | string>>): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
    ),
  );
}

/** A secret shown once, with a copy button and what the reader must know about it. */
export function shownOnce(title: string, secret: string, warning: string): HTMLElement {
  const code = h('code', { class: 'secret' }, secret);
  const copied = h('span', { role: 'status', class: 'copied' });
  const copy = button('Copy', async () => {
    try {
      await navigator.clipboard.writeText(secret);
      copied.textContent = 'Copied.';
    } catch {
      getSelection()?.selectAllChildren(code);
      copied.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
  return h(
    'section',
    { class: 'shown-once', 'aria-label': title },
    h('h3', {}, title),
    h('p', { class: 'warning' }, warning),
    h('div', { class: 'secret-row' }, code, copy, copied),
  );
}

/** "Next page" when there is one. The button goes with its page, so the focus moves to `focusId` (a heading). */
export function nextPageButton(
  label: string,
  page: { hasMore: boolean; nextCursor: string | null },
  show: (cursor: string) => Promise<void>,
  focusId: string,
): HTMLElement | null {
  const cursor = page.hasMore ? page.nextCursor : null;
  if (!cursor) return null;
  return button(label, async () => {
    await show(cursor);
    document.getElementById(focusId)?.focus();
  });
}
