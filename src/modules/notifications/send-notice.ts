import type { DbContext } from '../../context.js';
import type { Mailer } from './mailer.js';
import { findNotice, markNoticeSent } from './repository.js';

/** The 'notice.send' job: sends one notice unless it was sent already (a retried job sends nothing twice). */
export async function sendNotice(ctx: DbContext & { mailer: Mailer }, input: { noticeId: number }): Promise<void> {
  const notice = await findNotice(ctx.db, input.noticeId);
  if (!notice || notice.sent_at) return;
  const sent = await ctx.mailer.send({ id: notice.id, to: notice.to, subject: notice.subject, text: notice.body });
  if (sent) await markNoticeSent(ctx.db, notice.id, ctx.clock.now());
}
