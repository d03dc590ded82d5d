import type { Db } from '../../storage/db.js';
import { noKeyCache, type KeyCache } from './key-cache.js';
import { API_KEY_PATTERN, hashApiKey } from './keys.js';
import { findActiveKey, type ActiveKey } from './repository.js';

/**
 * The active key a caller presented, or undefined for a malformed, unknown, revoked or replaced one;
 * through the instance's exact cache when the context has one.
 */
export async function verifyApiKey(
  ctx: { db: Db; keyCache?: KeyCache },
  input: { key: string },
): Promise<ActiveKey | undefined> {
  if (!API_KEY_PATTERN.test(input.key)) return undefined;
  const keyHash = hashApiKey(input.key);
  return (ctx.keyCache ?? noKeyCache).lookup(keyHash, () => findActiveKey(ctx.db, keyHash));
}
