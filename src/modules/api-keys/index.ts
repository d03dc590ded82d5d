/** The API keys module: merchant keys, stored as hashes, rotated by their user, revoked with their user's role. */
export { rotateApiKey } from './rotate-key.js';
export { revokeKeysOfUser } from './revoke-keys-of-user.js';
export { verifyApiKey } from './verify-key.js';
export { listApiKeys, type KeySummary } from './list-keys.js';
export { refuseLiveKeysOnDevelopmentStore } from './refuse-live-keys-on-development-store.js';
export { markKeyExposed, type ActiveKey } from './repository.js';
export {
  awaitKeyCacheAcknowledgements,
  noKeyCache,
  startKeyCache,
  type KeyCache,
  type KeyCacheStats,
} from './key-cache.js';
export type { KeyMode, ApiKeysTable } from './tables.js';
