import type { ConnectionHealthSource } from './health.js';
import type { ConnectionRow } from './repository.js';
import type { ProcessorConnection } from './schemas.js';

/** A connection as the API answers it: everything but its credentials, with its health. */
export function presentConnection(row: ConnectionRow, health: ConnectionHealthSource): ProcessorConnection {
  return {
    connectionId: row.public_id,
    processor: row.processor,
    name: row.name,
    mode: row.mode,
    slots: row.slots,
    priority: row.priority,
    health: health.healthOf(row.public_id),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
