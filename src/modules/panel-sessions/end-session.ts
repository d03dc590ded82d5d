import type { DbContext } from '../../storage/db-context.js';
import { deleteSession } from './repository.js';

/** Sign-out: the session is gone at once, whichever copy of the cookie is presented later. */
export async function endPanelSession(ctx: Pick<DbContext, 'db'>, input: { sessionId: number }): Promise<void> {
  await deleteSession(ctx.db, input.sessionId);
}
