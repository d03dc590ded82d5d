import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import { revokeKeysOfUser } from '../api-keys/index.js';
import { keepAnOwner } from './refusals.js';
import { lockMember, markRemoved } from './repository.js';

/**
 * An owner removes a user from the team (never the last owner): their sessions end and their API keys
 * are revoked at once (`apiKeysRevoked`; the route answers once no instance accepts them), and they
 * cannot sign in again. The row stays, so what they did stays attributed. The caller owns the transaction.
 */
export async function removeMember(ctx: DbContext, input: { merchantId: number; userId: number }) {
  await keepAnOwner(ctx.db, input.merchantId, input.userId, 'removed');
  const member = await lockMember(ctx.db, input.merchantId, input.userId);
  if (!member) throw notFound('team member');
  await markRemoved(ctx.db, member.id, ctx.clock.now());
  const apiKeysRevoked = await revokeKeysOfUser(ctx, { userId: member.id });
  return { userId: member.id, removed: true as const, apiKeysRevoked };
}
