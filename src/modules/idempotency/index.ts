/**
 * The idempotency module: stored claims and responses of idempotency keys, and the purge of expired
 * ones. The HTTP side (http/idempotency.ts) decides which requests claim a key and what is replayed.
 */
import type { DbContext } from '../../context.js';
import type { Sweep } from '../../jobs/queue.js';
import { purgeSweep } from './purge-expired-keys.js';

export {
  findKey,
  recordRecoveryPoint,
  releaseClaim,
  storeResponse,
  tryClaim,
  type Claim,
  type RecoveryPoint,
} from './repository.js';
export type { IdempotencyKeysTable } from './tables.js';

/** The background side: the purge of expired keys. */
export const sweeps = (ctx: DbContext): Sweep[] => [purgeSweep(ctx)];
