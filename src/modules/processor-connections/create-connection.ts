import { randomBase62 } from '../../lib/crypto.js';
import type { ProcessorConnectionsContext } from './context.js';
import { checkedCredentials, sealCredentials } from './credentials.js';
import { presentConnection } from './present.js';
import { insertConnection, type ConnectionScope } from './repository.js';
import type { CreateConnectionInput, ProcessorConnection } from './schemas.js';

/** pc_ + 24 base62 characters (~143 random bits): the webhook receivers' paths carry it. */
export const newConnectionId = () => `pc_${randomBase62(24)}`;

/**
 * Connects the merchant, in the scope's mode, to a processor for the slots named. Credentials of the other
 * mode are refused before anything is written. The caller owns the transaction.
 */
export async function createConnection(
  ctx: ProcessorConnectionsContext,
  input: { scope: ConnectionScope; body: CreateConnectionInput },
): Promise<ProcessorConnection> {
  const { scope, body } = input;
  const credentials = checkedCredentials(body.processor, scope.mode, body.credentials);
  const now = ctx.clock.now();
  const row = await insertConnection(ctx.db, {
    ...scope,
    public_id: newConnectionId(),
    processor: body.processor,
    name: body.name ?? null,
    ...sealCredentials(ctx.vault, credentials),
    slots: body.slots,
    priority: body.priority ?? 0,
    created_at: now,
    updated_at: now,
  });
  return presentConnection(row, ctx.connectionHealth);
}
