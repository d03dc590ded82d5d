import type { DbContext } from '../../storage/db-context.js';
import { revokeActiveKeys } from './repository.js';

/**
 * Revokes every active key of a user who may hold none any more: demoted to viewer, or removed from the
 * team (docs/decisions.md "Team"). A key acts with its owner's powers, and a viewer's are to read in the
 * panel, so rather than keys that half work, the key is gone: the integration using it gets 401 on its
 * next call, and the owner is told how many keys went. Runs in the caller's transaction (the role change
 * and the revocation commit together); the key cache hears of it at commit (migration 0013's trigger),
 * and the caller answers only after awaitKeyCacheAcknowledgements, as a rotation does. How many were revoked.
 */
export async function revokeKeysOfUser(ctx: DbContext, input: { userId: number }): Promise<number> {
  return revokeActiveKeys(ctx.db, input.userId, undefined, ctx.clock.now());
}
