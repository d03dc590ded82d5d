import { call, money, when } from './api.js';
import type { Timeline, TimelineEntry } from '../../shared/api-types.js';
import { h } from './ui.js';

const SIGNATURE = { true: 'signature valid', false: 'signature INVALID', null: 'no signature (test call)' };

/** What happened, in one heading and one line of detail. */
function describe(entry: TimelineEntry): [string, string] {
  switch (entry.kind) {
    case 'created':
      return ['Created', `For ${money(entry.amount, entry.currency)}`];
    case 'event':
      return [`State change: ${entry.type}`, `Event ${entry.eventId}`];
    case 'callback': {
      const c = entry.callback;
      const outcome = c.processingError ? `not applied: ${c.processingError}` : 'applied';
      return [
        `Provider callback from ${c.source}`,
        `Status ${c.status ?? '—'}, ${SIGNATURE[String(c.signatureValid) as keyof typeof SIGNATURE]}, ${outcome}`,
      ];
    }
    case 'notification_attempt': {
      const answer = entry.error ? entry.error.message : `answered HTTP ${entry.statusCode ?? '—'}`;
      const ok = entry.statusCode !== null && entry.statusCode >= 200 && entry.statusCode < 300;
      return [
        `Notification attempt ${ok ? 'delivered' : 'failed'}`,
        `${entry.url} ${answer} in ${entry.durationMs} ms (event ${entry.eventId})`,
      ];
    }
  }
}

/** Every state change, provider callback and notification attempt of a payment request, in order, with times. */
export async function timelineSection(id: number): Promise<HTMLElement> {
  const timeline = await call<Timeline>('GET', `/payment-requests/${id}/timeline`);
  return h(
    'section',
    { 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    h(
      'ol',
      { class: 'timeline' },
      ...timeline.entries.map((entry) => {
        const [title, detail] = describe(entry);
        return h(
          'li',
          { class: `timeline-${entry.kind}` },
          h('time', { datetime: entry.at }, when(entry.at)),
          h('strong', {}, title),
          h('span', {}, detail),
        );
      }),
    ),
  );
}
