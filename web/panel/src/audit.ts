import { call, when } from './api.js';
import type { AuditEntry, Page } from '../../shared/api-types.js';
import { h, replaceContent, table } from './ui.js';

/** Owners only: key rotations, refunds and settings changes, who and when. */
export async function renderAudit(root: HTMLElement): Promise<void> {
  const page = await call<Page<AuditEntry>>('GET', '/audit-log?limit=100');
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
