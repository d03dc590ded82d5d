import { AppError } from '../../errors.js';
import type { AppContext } from '../../context.js';
import type { UserRole } from '../../storage/schema.js';
import { findUserByEmail, normalizeEmail, verifyPassword } from '../merchants/index.js';
import { queueNotice } from '../notifications/index.js';
import { clearFailures, findLock, recordFailure } from './repository.js';

export const MAX_FAILED_LOGINS = 10;
export const LOCKOUT_SECONDS = 30 * 60;

/** Sign-in to the access-token API (the spec's login): the checked credentials, as a one-hour bearer token. */
export async function login(
  ctx: Pick<AppContext, 'db' | 'clock' | 'tokens'>,
  input: { email: string; password: string },
): Promise<{ accessToken: string; expireDate: string }> {
  const user = await checkCredentials(ctx, input);
  return ctx.tokens.issue({ userId: user.userId, merchantId: user.merchantId });
}

/**
 * The one sign-in check, shared by the bearer login and the control panel's session. Unknown e-mail and wrong password are indistinguishable: same answer, one argon2
 * verification each, and failures are counted per typed e-mail whether or not it exists,
 * so the lock-out does not reveal accounts either.
 */
export async function checkCredentials(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  input: { email: string; password: string },
): Promise<{ userId: number; merchantId: number; email: string; role: UserRole }> {
  const { db, clock } = ctx;
  const email = normalizeEmail(input.email);
  const now = clock.now();

  const lock = await findLock(db, email);
  if (lock?.locked_until && lock.locked_until > now) throw locked(lock.locked_until, now);

  const found = await findUserByEmail(db, email);
  // A user removed from their merchant's team (modules/team) is as unknown as an e-mail with no account.
  const user = found?.removed_at ? undefined : found;
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) {
    const lockedNow = await recordFailure(db, email, now, {
      maxFailures: MAX_FAILED_LOGINS,
      lockUntil: new Date(now.getTime() + LOCKOUT_SECONDS * 1000),
    });
    // The account's owners hear of it; an e-mail with no account is locked just the same, silently.
    if (lockedNow && user)
      await queueNotice(ctx, {
        merchantId: user.merchant_id,
        kind: 'account_locked',
        subject: 'Sign-in locked after repeated failed attempts',
        text: `After ${MAX_FAILED_LOGINS} failed sign-in attempts for ${user.email}, sign-in is locked for ${LOCKOUT_SECONDS / 60} minutes. If this was not you, change your password.`,
      });
    throw new AppError('INVALID_CREDENTIALS', 'The e-mail or password is incorrect');
  }
  await clearFailures(db, email);
  return { userId: user.id, merchantId: user.merchant_id, email: user.email, role: user.role };
}

function locked(until: Date, now: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return new AppError('ACCOUNT_LOCKED', 'Too many failed sign-in attempts; try again later', {
    details: { retryAfter },
    retryAfterSeconds: retryAfter,
  });
}
