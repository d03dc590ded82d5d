import { call, canChange, when, type Mode, type Session } from './api.js';
import { button, h, message, replaceContent, shownOnce, table } from './ui.js';

export interface KeySummary {
  mode: Mode;
  prefix: string;
  createdAt: string;
  exposedAt: string | null;
}

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
    const act = !canChange(session)
      ? 'Viewers cannot change keys'
      : button(label, async () => {
          if (key && !confirm(`Rotate the ${mode} key? The current ${mode} key stops working at once.`)) return;
          try {
            const created = await rotateKey(session, mode);
            await renderKeys(root, session, { mode, key: created });
          } catch (error) {
            replaceContent(feedback, message('error', (error as Error).message));
          }
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
