import { AppError } from '../../errors.js';
import type { DbContext } from '../../storage/db-context.js';
import { assertPasswordRules, hashPassword, normalizeEmail, verifyPassword } from '../merchants/index.js';
import { countFailure, refuseLocked } from './lock-out.js';
import { clearFailures, findActiveUser, replacePassword } from './repository.js';

/**
 * A signed-in user changes their password (docs/decisions.md, "Password change and reset"): the new one
 * must meet the password rules and the current one must be given. A wrong current password counts as a
 * failed sign-in from the address (a stolen session cannot guess it without limit); the account-wide
 * guard does not apply, the user being signed in. Answers the new password's hash, for `changePassword`.
 */
export async function checkPasswordChange(
  ctx: DbContext,
  input: { userId: number; currentPassword: string; newPassword: string; address: string },
): Promise<{ passwordHash: string }> {
  assertPasswordRules(input.newPassword);
  const user = await findActiveUser(ctx.db, input.userId);
  if (!user) throw new AppError('UNAUTHORIZED', 'Sign in to the control panel first');
  const attempt = { email: normalizeEmail(user.email), address: input.address };
  await refuseLocked(ctx, attempt);
  if (!(await verifyPassword(user.password_hash, input.currentPassword))) {
    await countFailure(ctx, attempt, user, false);
    throw new AppError('INVALID_CREDENTIALS', 'The current password is incorrect', {
      details: { field: 'currentPassword' },
    });
  }
  await clearFailures(ctx.db, attempt.email, attempt.address);
  return { passwordHash: await hashPassword(input.newPassword) };
}

/**
 * The checked change, made: the new password, and every other session and every access token of the user
 * ended (`sessionId`, the session that made it, stays signed in). The caller owns the transaction.
 */
export async function changePassword(
  ctx: DbContext,
  input: { userId: number; sessionId: number; passwordHash: string },
): Promise<{ passwordChanged: true }> {
  await replacePassword(ctx.db, {
    userId: input.userId,
    passwordHash: input.passwordHash,
    keepSessionId: input.sessionId,
    now: ctx.clock.now(),
  });
  return { passwordChanged: true };
}
