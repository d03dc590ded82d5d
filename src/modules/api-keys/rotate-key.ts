import { notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import type { KeyMode } from '../../storage/schema.js';
import { generateApiKey } from './keys.js';
import { insertKey, revokeActiveKey } from './repository.js';

/**
 * Replaces the user's key of one mode and returns the new key (shown once, stored only as a hash).
 * Runs in the caller's transaction; the user row is locked so concurrent rotations queue up
 * and exactly one key per user and mode stays active.
 */
export async function rotateApiKey(trx: Db, clock: Clock, input: { userId: number; mode: KeyMode }): Promise<string> {
  const user = await trx.selectFrom('users').select(['id', 'merchant_id']).where('id', '=', input.userId).forUpdate().executeTakeFirst();
  if (!user) throw notFound('user');
  await revokeActiveKey(trx, user.id, input.mode, clock.now());
  const generated = generateApiKey(input.mode);
  await insertKey(trx, { merchantId: user.merchant_id, userId: user.id, mode: input.mode, ...generated });
  return generated.key;
}
