import { call, canChange, when } from './api.js';
import type { FailedJob, Page, Session } from '../../shared/api-types.js';
import { announce, button, h, message, nextPageButton, replaceContent, table } from './ui.js';

const KINDS: Record<string, string> = {
  'payment.capture': 'Scheduled capture',
  'payment_request.expire': 'Payment request expiry',
  'notice.send': 'E-mail notice',
  'callback.process': 'Callback processing',
};

const OBJECTS: Record<string, string> = {
  paymentId: 'Payment',
  paymentRequestId: 'Payment request',
  noticeId: 'E-mail notice',
  callbackEventId: 'Callback',
};

/** What the job works on, the merchant itself left out: "Payment request 12". */
const target = (payload: Record<string, number>) =>
  Object.entries(payload)
    .filter(([name]) => name !== 'merchantId')
    .map(([name, id]) => `${OBJECTS[name] ?? name} ${id}`)
    .join(', ') || '—';

/**
 * GET /jobs/failed: background work for this merchant that failed on every attempt, with a Retry button
 * for owners and developers (POST /jobs/{id}/retry; the gateway refuses a viewer, the page does not offer it).
 */
export async function renderFailedJobs(section: HTMLElement, session: Session, cursor?: string): Promise<void> {
  const page = await call<Page<FailedJob>>(
    'GET',
    `/jobs/failed?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  const feedback = h('div', { class: 'feedback' });
  const retry = async (job: FailedJob) => {
    try {
      await call('POST', `/jobs/${job.id}/retry`);
    } catch (error) {
      replaceContent(feedback, message('error', (error as Error).message));
      return;
    }
    const done = `Job ${job.id} will run again within a few seconds.`;
    await renderFailedJobs(section, session);
    const after = section.querySelector<HTMLElement>('.feedback');
    if (after) replaceContent(after, message('success', done));
    announce(done);
    document.getElementById('failed-jobs-title')?.focus();
  };
  const rows = page.data.map((job) => [
    String(job.id),
    KINDS[job.kind] ?? job.kind,
    target(job.payload),
    String(job.attempts),
    when(job.failedAt),
    job.lastError ?? '—',
    ...(canChange(session) ? [button('Retry', () => retry(job), { 'aria-label': `Retry job ${job.id}` })] : []),
  ]);
  replaceContent(
    section,
    h('h2', { id: 'failed-jobs-title', tabindex: '-1' }, 'Failed jobs'),
    h(
      'p',
      {},
      'Background work that failed on every attempt. It waits here until it is retried; a retry runs it once more with all its attempts.',
    ),
    feedback,
    rows.length
      ? table(
          'Failed jobs, newest first',
          ['Job', 'Kind', 'For', 'Attempts', 'Failed', 'Last error', ...(canChange(session) ? [''] : [])],
          rows,
        )
      : h('p', {}, cursor ? 'No more failed jobs.' : 'No failed jobs.'),
    nextPageButton(
      'Next page of failed jobs',
      page,
      (next) => renderFailedJobs(section, session, next),
      'failed-jobs-title',
    ),
  );
}
