/**
 * The idempotency module: stored claims and responses of idempotency keys. The HTTP side
 * (http/idempotency.ts) decides which requests claim a key and what is replayed.
 */
export {
  findKey,
  recordRecoveryPoint,
  releaseClaim,
  storeResponse,
  tryClaim,
  type Claim,
  type RecoveryPoint,
} from './repository.js';
