import type { DbContext } from '../../storage/db-context.js';
import { findMembers, findOpenInvitations } from './repository.js';

/** The merchant's team: its users (e-mail, role, since when) and the invitations still open. */
export async function listTeam(ctx: DbContext, input: { merchantId: number }) {
  const now = ctx.clock.now();
  const [members, invitations] = await Promise.all([
    findMembers(ctx.db, input.merchantId),
    findOpenInvitations(ctx.db, input.merchantId),
  ]);
  return {
    members: members.map(presentMember),
    invitations: invitations.map((i) => ({
      invitationId: i.id,
      email: i.email,
      role: i.role,
      invitedBy: i.invited_by_email,
      createdAt: i.created_at.toISOString(),
      expiresAt: i.expires_at.toISOString(),
      expired: i.expires_at <= now,
    })),
  };
}

export const presentMember = (m: { id: number; email: string; role: string; created_at: Date }) => ({
  userId: m.id,
  email: m.email,
  role: m.role as 'owner' | 'developer' | 'viewer',
  since: m.created_at.toISOString(),
});
