import type { DbContext } from '../../storage/db-context.js';
import type { Mailer } from './mailer.js';
import type { NoticeKind } from './queue-notice.js';
import { findNotice, markNoticeSent } from './repository.js';

/**
 * The mail's text of a notice kind whose mail carries what the stored notice must not (an invitation's
 * single-use link): from the stored body, at send time; null when the notice is no longer to be sent.
 */
export type NoticeComposer = (notice: { id: number; body: string }) => Promise<string | null>;
export type NoticeComposers = Partial<Record<NoticeKind, NoticeComposer>>;

/** The 'notice.send' job: sends one notice unless it was sent already (a retried job sends nothing twice). */
export async function sendNotice(
  ctx: DbContext & { mailer: Mailer; composers: NoticeComposers },
  input: { noticeId: number },
): Promise<void> {
  const notice = await findNotice(ctx.db, input.noticeId);
  if (!notice || notice.sent_at) return;
  const compose = ctx.composers[notice.kind as NoticeKind];
  const text = compose ? await compose(notice) : notice.body;
  if (text === null) return;
  const sent = await ctx.mailer.send({ id: notice.id, to: notice.to, subject: notice.subject, text });
  if (sent) await markNoticeSent(ctx.db, notice.id, ctx.clock.now());
}
