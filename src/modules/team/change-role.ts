import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import type { UserRole } from '../merchants/index.js';
import { revokeKeysOfUser } from '../api-keys/index.js';
import { keepAnOwner } from './refusals.js';
import { presentMember } from './list-team.js';
import { lockMember, updateRole } from './repository.js';

/**
 * An owner changes a teammate's role (their own too, while another owner remains). It applies to the
 * user's next request: sessions read the role afresh. A viewer holds no API key, so a demotion to viewer
 * revokes the user's keys with it (`apiKeysRevoked`; the route answers once no instance accepts them).
 * The caller owns the transaction.
 */
export async function changeRole(ctx: DbContext, input: { merchantId: number; userId: number; role: UserRole }) {
  // Owners first, then the member: every owner-changing action locks in that order.
  if (input.role !== 'owner') await keepAnOwner(ctx.db, input.merchantId, input.userId, 'demoted');
  // The member's row lock also queues a rotation of theirs (it locks the same row, then sees the new role).
  const member = await lockMember(ctx.db, input.merchantId, input.userId);
  if (!member) throw notFound('team member');
  await updateRole(ctx.db, member.id, input.role);
  const apiKeysRevoked = input.role === 'viewer' ? await revokeKeysOfUser(ctx, { userId: member.id }) : 0;
  return { ...presentMember({ ...member, role: input.role }), apiKeysRevoked };
}
