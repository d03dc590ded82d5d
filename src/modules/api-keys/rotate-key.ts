import { AppError, notFound } from '../../errors.js';
import type { DbContext } from '../../storage/db-context.js';
import type { KeyMode } from './tables.js';
import { generateApiKey } from './keys.js';
import { insertKey, lockUser, revokeActiveKeys } from './repository.js';

/**
 * Replaces the user's key of one mode and returns the new key (shown once, stored only as a hash).
 * Runs in the caller's transaction; the user row is locked so concurrent rotations queue up
 * and exactly one key per user and mode stays active.
 */
export async function rotateApiKey(ctx: DbContext, input: { userId: number; mode: KeyMode }): Promise<string> {
  const user = await lockUser(ctx.db, input.userId);
  if (!user) throw notFound('user');
  // Roles (docs/decisions.md, "Control-panel roles"): a viewer reads and holds no key.
  if (user.role === 'viewer')
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'A viewer cannot generate or rotate API keys');
  await revokeActiveKeys(ctx.db, user.id, input.mode, ctx.clock.now());
  const generated = generateApiKey(input.mode);
  await insertKey(ctx.db, { merchantId: user.merchant_id, userId: user.id, mode: input.mode, ...generated });
  return generated.key;
}
