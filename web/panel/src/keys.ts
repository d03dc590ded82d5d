import { call, canChange, when, type Mode } from './api.js';
import type { KeySummary, Session } from '../../shared/api-types.js';
import { announce, button, h, message, replaceContent, shownOnce, table } from './ui.js';

export const listKeys = (session: Session) => call<KeySummary[]>('GET', `/users/${session.user.id}/apikeys`);

/** Rotation answers the new key (a JSON string); the old one is revoked in the same transaction. */
export const rotateKey = (session: Session, mode: Mode) =>
  call<string>('PUT', `/users/${session.user.id}/apikey?mode=${mode}`);

export const newKeyNotice = (mode: Mode, key: string) =>
  shownOnce(
    `New ${mode} key`,
    key,
    `Copy this key now: it is shown only once. The previous ${mode} key stopped working at once; update your servers.`,
  );

/** API keys: one per mode; the key itself is shown once, afterwards only its prefix and creation time. */
export async function renderKeys(root: HTMLElement, session: Session, justCreated?: { mode: Mode; key: string }) {
  const keys = await listKeys(session);
  const feedback = h(
    'div',
    { class: 'feedback' },
    justCreated ? newKeyNotice(justCreated.mode, justCreated.key) : null,
  );
  const rows = (['test', 'live'] as const).map((mode) => {
    const key = keys.find((k) => k.mode === mode);
    const label = key ? `Rotate ${mode} key` : `Generate ${mode} key`;
    const generate = async () => {
      try {
        const created = await rotateKey(session, mode);
        await renderKeys(root, session, { mode, key: created });
      } catch (error) {
        replaceContent(feedback, message('error', (error as Error).message));
      }
    };
    const act = !canChange(session)
      ? 'Viewers cannot change keys'
      : button(label, async (event) => {
          if (mode === 'live') {
            // A live key is never one click away: the reader confirms in the page, told what it does.
            const opener = event.currentTarget as HTMLElement;
            replaceContent(feedback, liveKeyConfirmation(session, Boolean(key), generate, opener, feedback));
            feedback.querySelector<HTMLElement>('.confirm-live h2')?.focus();
            return;
          }
          if (key && !confirm(`Rotate the ${mode} key? The current ${mode} key stops working at once.`)) return;
          await generate();
        });
    return [
      mode === 'test' ? 'Test' : 'Live',
      key ? h('code', {}, `${key.prefix}…`) : 'No key yet',
      key ? when(key.createdAt) : '—',
      key?.exposedAt ? h('strong', { class: 'exposed' }, `Exposed ${when(key.exposedAt)}`) : 'No',
      act,
    ];
  });
  replaceContent(
    root,
    h('h1', {}, 'API keys'),
    h(
      'p',
      {},
      'Your servers send a key in the X-API-Key header. Test keys reach only sandbox data; live keys only live data.',
    ),
    feedback,
    table('Your API keys', ['Mode', 'Key', 'Created', 'Exposed', 'Action'], rows),
  );
  const notice = root.querySelector<HTMLElement>('.shown-once');
  if (notice) {
    notice.tabIndex = -1;
    notice.focus();
  }
}

/**
 * Asks before a live key is made: what a live key is, that rotating stops the current one, and on a
 * development store that the gateway's next start will refuse to run (the card key is in the same store).
 */
function liveKeyConfirmation(
  session: Session,
  rotating: boolean,
  generate: () => Promise<void>,
  opener: HTMLElement,
  feedback: HTMLElement,
): HTMLElement {
  const action = rotating ? 'Rotate the live key' : 'Generate a live key';
  const cancel = () => {
    replaceContent(feedback);
    announce(`${action}: cancelled. Nothing was changed.`);
    opener.focus();
  };
  return h(
    'section',
    { class: 'confirm-live', 'aria-labelledby': 'confirm-live-title' },
    h('h2', { id: 'confirm-live-title', tabindex: '-1' }, `${action}?`),
    h(
      'p',
      {},
      'A live key moves real money and reaches only live data. Keep it on your servers, never in a page or an app.',
    ),
    rotating ? h('p', {}, 'The current live key stops working at once: update your servers.') : null,
    session.developmentStore
      ? h(
          'p',
          { class: 'warning', id: 'development-store-warning' },
          'This gateway runs on a development store: its card encryption key is kept in its own database. ' +
            'Once a live key exists, the next start of the gateway (npm start) refuses to run (exit 1) until ' +
            'CARD_ENCRYPTION_KEYS and CARD_FINGERPRINT_SECRET are set, or you use a fresh development store.',
        )
      : null,
    h(
      'div',
      { class: 'actions' },
      button(rotating ? 'Yes, rotate the live key' : 'Yes, generate the live key', generate),
      button('Cancel', cancel, { class: 'secondary' }),
    ),
  );
}
