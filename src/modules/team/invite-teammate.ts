import type { TeamContext } from './context.js';
import type { UserRole } from '../merchants/index.js';
import { checkedEmail, findUserByEmail } from '../merchants/index.js';
import { queueNotice } from '../notifications/index.js';
import { INVITATION_LINK, invitationText } from './invitation-mail.js';
import { INVITATION_TTL_MS, newInvitationToken } from './invitation-token.js';
import { alreadyRegistered } from './refusals.js';
import { insertInvitation, revokeOpenInvitations, setInvitationNotice } from './repository.js';

/**
 * An owner invites someone to the merchant's team with a role: an invitation (its link's token only as a
 * hash) and an e-mail notice to the invitee alone, whose stored text holds a placeholder where the link
 * goes (the mail job composes the link in: invitation-mail.ts). A new invitation to the same e-mail
 * replaces an open one. The caller owns the transaction.
 */
export async function inviteTeammate(
  ctx: Pick<TeamContext, 'db' | 'clock' | 'secrets'>,
  input: {
    merchantId: number;
    merchantName: string;
    invitedBy: { userId: number; email: string };
    email: string;
    role: UserRole;
  },
) {
  const email = checkedEmail(input.email);
  if (await findUserByEmail(ctx.db, email)) throw alreadyRegistered(email);
  const now = ctx.clock.now();
  await revokeOpenInvitations(ctx.db, input.merchantId, email, now);
  const { hash, nonce } = newInvitationToken(ctx.secrets.jwtSecret);
  const invitation = await insertInvitation(ctx.db, {
    merchantId: input.merchantId,
    email,
    role: input.role,
    tokenHash: hash,
    tokenNonce: nonce,
    invitedBy: input.invitedBy.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  const noticeId = await queueNotice(ctx, {
    merchantId: input.merchantId,
    kind: 'invitation',
    to: [email],
    subject: `You are invited to ${input.merchantName}'s payment gateway control panel`,
    text: invitationText({ ...input, role: input.role, expiresAt: invitation.expires_at, link: INVITATION_LINK }),
  });
  if (noticeId !== undefined) await setInvitationNotice(ctx.db, invitation.id, noticeId);
  return {
    invitationId: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy: input.invitedBy.email,
    createdAt: invitation.created_at.toISOString(),
    expiresAt: invitation.expires_at.toISOString(),
    expired: false,
  };
}
