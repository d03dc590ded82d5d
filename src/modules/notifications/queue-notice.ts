import type { DbContext } from '../../storage/db-context.js';
import { dedupeKey } from '../../jobs/catalog.js';
import { enqueueJob } from '../../jobs/queue.js';
import { insertNotice, merchantEmails } from './repository.js';

export type NoticeKind =
  | 'deprecation'
  | 'api_key_exposed'
  | 'account_locked'
  | 'endpoint_disabled'
  | 'invitation'
  | 'password_reset'
  | 'sign_in_link';

/**
 * Records an e-mail notice to every user of the merchant (or only to `to`) and queues its sending (a job:
 * off the request path, retried, sent once). The text must never carry a secret: it names keys by id and
 * prefix only; a secret the mail must carry is composed in at send time (NoticeComposers, send-notice.ts).
 * The caller owns the transaction. Answers the notice's id (undefined when there is nobody to tell).
 */
export async function queueNotice(
  ctx: DbContext,
  input: { merchantId: number; kind: NoticeKind; subject: string; text: string; to?: string[] },
): Promise<number | undefined> {
  const to = input.to ?? (await merchantEmails(ctx.db, input.merchantId));
  if (to.length === 0) return undefined;
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
  return noticeId;
}
