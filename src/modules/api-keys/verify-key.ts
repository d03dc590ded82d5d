import type { Db } from '../../storage/db.js';
import { API_KEY_PATTERN, hashApiKey } from './keys.js';
import { findActiveKey, type ActiveKey } from './repository.js';

/** The active key a caller presented, or undefined for a malformed, unknown, revoked or replaced one. */
export async function verifyApiKey(ctx: { db: Db }, input: { key: string }): Promise<ActiveKey | undefined> {
  return API_KEY_PATTERN.test(input.key) ? findActiveKey(ctx.db, hashApiKey(input.key)) : undefined;
}
