import { notFound } from '../../errors.js';
import type { ProcessorConnectionsContext } from './context.js';
import { presentConnection } from './present.js';
import { findConnection, findConnections, type ConnectionScope } from './repository.js';
import type { ConnectionList, ProcessorConnection } from './schemas.js';

type ReadContext = Pick<ProcessorConnectionsContext, 'db' | 'connectionHealth'>;

/** The scope's connections, highest priority first, with their health. */
export async function listConnections(ctx: ReadContext, input: { scope: ConnectionScope }): Promise<ConnectionList> {
  const rows = await findConnections(ctx.db, input.scope);
  return { data: rows.map((row) => presentConnection(row, ctx.connectionHealth)) };
}

export const connectionNotFound = () => notFound('processor connection');

/** One connection, or 404 when it is missing, another merchant's or the other mode's. */
export async function getConnection(
  ctx: ReadContext,
  input: { scope: ConnectionScope; connectionId: string },
): Promise<ProcessorConnection> {
  const row = await findConnection(ctx.db, input.scope, input.connectionId);
  if (!row) throw connectionNotFound();
  return presentConnection(row, ctx.connectionHealth);
}
