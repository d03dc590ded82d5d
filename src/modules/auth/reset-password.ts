import type { DbContext } from '../../storage/db-context.js';
import { assertPasswordRules, hashPassword } from '../merchants/index.js';
import { useAccountLink } from './account-links.js';
import { clearAllFailures, replacePassword } from './repository.js';

/**
 * The e-mailed reset link's page sets a new password: the link is used up, every session and access token
 * of the user ends, and the e-mail's failed sign-ins and locks are forgotten (they were against the old
 * password). Refusals change nothing: 410 LINK_INVALID, 400 for a password that breaks the rules. The user
 * then signs in with the new password. The caller owns the transaction.
 */
export async function resetPassword(
  ctx: DbContext,
  input: { token: string; password: string },
): Promise<{ passwordReset: true }> {
  const link = await useAccountLink(ctx, { kind: 'password_reset', token: input.token });
  assertPasswordRules(input.password);
  await replacePassword(ctx.db, {
    userId: link.user_id,
    passwordHash: await hashPassword(input.password),
    now: ctx.clock.now(),
  });
  await clearAllFailures(ctx.db, link.email);
  return { passwordReset: true };
}
