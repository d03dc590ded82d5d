import { AppError } from '../../errors.js';
import { inTransaction } from '../../storage/db-context.js';
import type { AuthContext } from './context.js';
import type { UserRole } from '../merchants/index.js';
import { findUserByEmail, normalizeEmail, verifyPassword } from '../merchants/index.js';
import { sendAccountLink } from './account-links.js';
import { countFailure, guardedAnswer, refuseLocked } from './lock-out.js';
import { clearFailures } from './repository.js';

/** A user whose credentials were just established: what a session or an access token is made of. */
export interface SignedInUser {
  userId: number;
  merchantId: number;
  email: string;
  role: UserRole;
  /** The user's token generation: a password change or reset moves it on and ends what was issued before. */
  generation: number;
}

/** Sign-in to the access-token API (the spec's login): the checked credentials, as a one-hour bearer token. */
export async function login(
  ctx: Pick<AuthContext, 'db' | 'clock' | 'tokens' | 'secrets'>,
  input: { email: string; password: string; address: string },
): Promise<{ accessToken: string; expireDate: string }> {
  const user = await checkCredentials(ctx, input);
  return ctx.tokens.issue({ userId: user.userId, merchantId: user.merchantId, generation: user.generation });
}

/**
 * The one sign-in check, shared by the bearer login and the control panel's session, under the lock-out
 * rules (lock-out.ts). Unknown e-mail and wrong password are indistinguishable: same answer, one argon2
 * verification each, failures counted per typed e-mail whether or not it exists.
 */
export async function checkCredentials(
  ctx: Pick<AuthContext, 'db' | 'clock' | 'secrets'>,
  input: { email: string; password: string; address: string },
): Promise<SignedInUser> {
  const attempt = { email: normalizeEmail(input.email), address: input.address };
  const guardedUntil = await refuseLocked(ctx, attempt);

  const found = await findUserByEmail(ctx.db, attempt.email);
  // A user removed from their merchant's team (modules/team) is as unknown as an e-mail with no account.
  const user = found?.removed_at ? undefined : found;
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) {
    await countFailure(ctx, attempt, user, guardedUntil !== null);
    if (guardedUntil) throw guardedAnswer(guardedUntil, ctx.clock.now());
    throw new AppError('INVALID_CREDENTIALS', 'The e-mail or password is incorrect');
  }
  if (guardedUntil) {
    // The right password, on a guarded e-mail: the owner gets in through their mailbox; the answer is a guess's.
    await inTransaction(ctx, (trx) => sendAccountLink(trx, { kind: 'sign_in', user }));
    throw guardedAnswer(guardedUntil, ctx.clock.now());
  }
  await clearFailures(ctx.db, attempt.email, attempt.address);
  return {
    userId: user.id,
    merchantId: user.merchant_id,
    email: user.email,
    role: user.role,
    generation: user.token_generation,
  };
}
