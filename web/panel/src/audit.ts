import { call, when } from './api.js';
import { h, replaceContent, table } from './ui.js';

interface AuditEntry {
  action: string;
  target: string;
  mode: string | null;
  by: string | null;
  at: string;
}

/** Owners only: key rotations, refunds and settings changes, who and when. */
export async function renderAudit(root: HTMLElement): Promise<void> {
  const page = await call<{ data: AuditEntry[] }>('GET', '/audit-log?limit=100');
  replaceContent(
    root,
    h('h1', {}, 'Audit log'),
    page.data.length
      ? table(
          'Sensitive actions, newest first',
          ['When', 'Action', 'On', 'Mode', 'By'],
          page.data.map((e) => [when(e.at), e.action, e.target, e.mode ?? '—', e.by ?? '—']),
        )
      : h('p', {}, 'No sensitive action yet.'),
  );
}
