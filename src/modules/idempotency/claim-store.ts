import type { ClaimStore } from '../../http/idempotency.js';
import type { Db } from '../../storage/db.js';
import { findKey, releaseClaim, storeResponse, tryClaim } from './repository.js';

/** The keys of every merchant in the database, as the HTTP idempotency hooks use them. */
export function claimStore(db: Db): ClaimStore {
  return {
    tryClaim: (input) => tryClaim(db, input),
    findKey: (merchantId, key) => findKey(db, merchantId, key),
    releaseClaim: (claim) => releaseClaim(db, claim),
    storeResponse: (claim, response) => storeResponse(db, claim, response),
  };
}
