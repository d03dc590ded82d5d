import type { KeyMode } from '../api-keys/index.js';
import type { ProcessorConnectionsContext } from './context.js';
import { openCredentials, type CredentialsOf } from './credentials.js';
import type { ConnectionHealth } from './health.js';
import { findConnectionByPublicId, findConnections, type ConnectionRow } from './repository.js';
import type { ConnectionSlot, ProcessorKind } from './tables.js';

/** A connection as the gateway itself uses it: with its credentials decrypted. Never an answer of the API. */
export type UsableConnection = {
  [P in ProcessorKind]: {
    connectionId: string;
    merchantId: number;
    mode: KeyMode;
    processor: P;
    name: string | null;
    slots: ConnectionSlot[];
    priority: number;
    health: ConnectionHealth;
    credentials: CredentialsOf[P];
  };
}[ProcessorKind];

type UseContext = Pick<ProcessorConnectionsContext, 'db' | 'vault' | 'connectionHealth'>;

function usable(ctx: UseContext, row: ConnectionRow): UsableConnection {
  return {
    connectionId: row.public_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    processor: row.processor,
    name: row.name,
    slots: row.slots,
    priority: row.priority,
    health: ctx.connectionHealth.healthOf(row.public_id),
    credentials: openCredentials(ctx.vault, row),
  } as UsableConnection;
}

/**
 * The merchant's connections serving a slot in a mode, highest priority first (then oldest first), for
 * the payment routing: none means test mode falls back to the built-in sandbox processor of that name.
 */
export async function connectionsFor(
  ctx: UseContext,
  input: { merchantId: number; mode: KeyMode; slot: ConnectionSlot },
): Promise<UsableConnection[]> {
  const rows = await findConnections(ctx.db, { merchantId: input.merchantId, mode: input.mode }, input.slot);
  return rows.map((row) => usable(ctx, row));
}

/** The connection a webhook receiver's path names (POST /callbacks/{processor}/{connectionId}), any merchant's. */
export async function connectionById(ctx: UseContext, connectionId: string): Promise<UsableConnection | undefined> {
  const row = await findConnectionByPublicId(ctx.db, connectionId);
  return row && usable(ctx, row);
}
