import type { DbContext } from '../../context.js';
import { dedupeKey } from '../../jobs/catalog.js';
import { enqueueJob } from '../../jobs/queue.js';
import { insertNotice, merchantEmails } from './repository.js';

export type NoticeKind = 'deprecation' | 'api_key_exposed' | 'account_locked' | 'endpoint_disabled';

/**
 * Records an e-mail notice to every user of the merchant and queues its sending (a job: off the request
 * path, retried, sent once). The text must never carry a secret: it names keys by id and prefix only.
 * The caller owns the transaction.
 */
export async function queueNotice(
  ctx: DbContext,
  input: { merchantId: number; kind: NoticeKind; subject: string; text: string },
): Promise<void> {
  const to = await merchantEmails(ctx.db, input.merchantId);
  if (to.length === 0) return;
  const noticeId = await insertNotice(ctx.db, {
    merchantId: input.merchantId,
    kind: input.kind,
    to: to.join(', '),
    subject: input.subject,
    body: input.text,
    at: ctx.clock.now(),
  });
  await enqueueJob(ctx.db, 'notice.send', {
    payload: { noticeId },
    runAt: ctx.clock.now(),
    merchantId: input.merchantId,
    dedupeKey: dedupeKey('notice.send', noticeId),
  });
}
