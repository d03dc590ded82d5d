import type { DbContext } from '../../storage/db-context.js';
import { connectionNotFound } from './list-connections.js';
import { deleteConnectionRow, type ConnectionScope } from './repository.js';

/** Removes the connection and its credentials; its slots fall to the next one (or, in test mode, the sandbox). */
export async function deleteConnection(
  ctx: Pick<DbContext, 'db'>,
  input: { scope: ConnectionScope; connectionId: string },
) {
  if (!(await deleteConnectionRow(ctx.db, input.scope, input.connectionId))) throw connectionNotFound();
  return { connectionId: input.connectionId, deleted: true as const };
}
