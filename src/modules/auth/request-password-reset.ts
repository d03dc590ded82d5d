import type { AuthContext } from './context.js';
import { findUserByEmail, normalizeEmail } from '../merchants/index.js';
import { sendAccountLink } from './account-links.js';

/**
 * "Forgot password": a single-use link valid 1 hour is e-mailed to the user of that address, if there is
 * one still on a team and it was not sent too many links lately (account-links.ts). The answer is the
 * same either way and the mail goes later (a job), so it reveals nothing. The caller owns the transaction.
 */
export async function requestPasswordReset(
  ctx: Pick<AuthContext, 'db' | 'clock' | 'secrets'>,
  input: { email: string },
): Promise<void> {
  const user = await findUserByEmail(ctx.db, normalizeEmail(input.email));
  if (!user || user.removed_at) return;
  await sendAccountLink(ctx, { kind: 'password_reset', user });
}

export const RESET_REQUESTED =
  'If a user has this e-mail address, a link to choose a new password is on its way to it; it works once, for 1 hour.';
