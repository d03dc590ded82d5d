/**
 * The idempotency module: stored claims and responses of idempotency keys, and the purge of expired
 * ones. The HTTP side (http/idempotency.ts) decides which requests claim a key and what is replayed; it
 * reaches the keys through `claimStore`, the store app.ts hands it.
 */
import type { DbContext } from '../../storage/db-context.js';
import type { Sweep } from '../../jobs/queue.js';
import { purgeSweep } from './purge-expired-keys.js';

export { recordRecoveryPoint } from './repository.js';
export type { Claim, RecoveryPoint } from '../../http/idempotency.js';
export { claimStore } from './claim-store.js';
export { createOnce } from './create-once.js';
export type { IdempotencyKeysTable } from './tables.js';

/** The background side: the purge of expired keys. */
export const sweeps = (ctx: DbContext): Sweep[] => [purgeSweep(ctx)];
