import type { DbContext } from '../../storage/db-context.js';
import { AppError } from '../../errors.js';
import { assertPasswordRules, findUserByEmail, hashPassword } from '../merchants/index.js';
import { hashInvitationToken, isWellFormedInvitationToken } from './invitation-token.js';
import { alreadyRegistered } from './refusals.js';
import { insertMember, lockInvitationByHash, markAccepted } from './repository.js';

const invalid = (reason: 'unknown' | 'expired' | 'used' | 'revoked') =>
  new AppError('INVITATION_INVALID', `This invitation link is not valid (${reason}); ask an owner for a new one`, {
    details: { reason },
  });

/**
 * The invitee chooses a password: a user of the invited merchant with the invited role, and the
 * invitation used up. Any refusal changes nothing. The caller owns the transaction.
 */
export async function acceptInvitation(ctx: DbContext, input: { token: string; password: string }) {
  if (!isWellFormedInvitationToken(input.token)) throw invalid('unknown');
  const invitation = await lockInvitationByHash(ctx.db, hashInvitationToken(input.token));
  if (!invitation) throw invalid('unknown');
  if (invitation.accepted_at) throw invalid('used');
  if (invitation.revoked_at) throw invalid('revoked');
  const now = ctx.clock.now();
  if (invitation.expires_at <= now) throw invalid('expired');
  assertPasswordRules(input.password);
  if (await findUserByEmail(ctx.db, invitation.email)) throw alreadyRegistered(invitation.email);
  const passwordHash = await hashPassword(input.password);
  const user = await insertMember(ctx.db, {
    merchantId: invitation.merchant_id,
    email: invitation.email,
    passwordHash,
    role: invitation.role,
  }).catch((error: unknown) => {
    // Registered meanwhile (another merchant's invitation, a new merchant): the unique index decides.
    if ((error as { code?: string }).code === '23505') throw alreadyRegistered(invitation.email);
    throw error;
  });
  await markAccepted(ctx.db, invitation.id, now);
  return {
    userId: user.id,
    merchantId: invitation.merchant_id,
    email: invitation.email,
    role: invitation.role,
    generation: user.token_generation,
  };
}
