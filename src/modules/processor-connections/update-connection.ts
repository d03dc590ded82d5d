import { AppError } from '../../errors.js';
import type { ProcessorConnectionsContext } from './context.js';
import { checkedCredentials, sealCredentials } from './credentials.js';
import { connectionNotFound } from './list-connections.js';
import { presentConnection } from './present.js';
import { findConnection, updateConnectionRow, type ConnectionChanges, type ConnectionScope } from './repository.js';
import { UPDATABLE_FIELDS, type ProcessorConnection, type UpdateConnectionInput } from './schemas.js';

/**
 * Changes the fields sent (absent = unchanged; a null name is cleared). New credentials replace the stored
 * ones whole and obey the same rules as at creation, against the connection's processor and mode; the
 * processor itself never changes (connect another one instead). An empty change is refused, as a
 * misspelt field usually is the cause. The caller owns the transaction.
 */
export async function updateConnection(
  ctx: ProcessorConnectionsContext,
  input: { scope: ConnectionScope; connectionId: string; changes: UpdateConnectionInput },
): Promise<ProcessorConnection> {
  const { name, slots, priority, credentials } = input.changes;
  if (name === undefined && slots === undefined && priority === undefined && credentials === undefined) {
    throw new AppError('VALIDATION_ERROR', `Send at least one field to change: ${UPDATABLE_FIELDS.join(', ')}`, {
      details: { missingFields: [], expectedAnyOf: UPDATABLE_FIELDS },
    });
  }
  const row = await findConnection(ctx.db, input.scope, input.connectionId, { lock: true });
  if (!row) throw connectionNotFound();
  const changes: ConnectionChanges = {
    ...(name !== undefined ? { name } : {}),
    ...(slots !== undefined ? { slots } : {}),
    ...(priority !== undefined ? { priority } : {}),
    ...(credentials !== undefined
      ? sealCredentials(ctx.vault, checkedCredentials(row.processor, row.mode, credentials))
      : {}),
  };
  const updated = await updateConnectionRow(ctx.db, row.id, changes, ctx.clock.now());
  return presentConnection(updated, ctx.connectionHealth);
}
