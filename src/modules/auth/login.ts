import { sql } from 'kysely';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { findUserByEmail, normalizeEmail, verifyPassword } from '../merchants/index.js';
import type { AccessTokens } from './jwt.js';

export const MAX_FAILED_LOGINS = 10;
export const LOCKOUT_SECONDS = 30 * 60;

/**
 * Sign-in. Unknown e-mail and wrong password are indistinguishable: same answer, one argon2
 * verification each, and failures are counted per typed e-mail whether or not it exists,
 * so the lock-out does not reveal accounts either.
 */
export async function login(
  deps: { db: Db; clock: Clock; tokens: AccessTokens },
  input: { email: string; password: string },
): Promise<{ accessToken: string; expireDate: string }> {
  const { db, clock } = deps;
  const email = normalizeEmail(input.email);
  const now = clock.now();

  const lock = await db.selectFrom('login_failures').select('locked_until').where('email', '=', email).executeTakeFirst();
  if (lock?.locked_until && lock.locked_until > now) throw locked(lock.locked_until, now);

  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) {
    await recordFailure(db, email, now);
    throw new AppError('INVALID_CREDENTIALS', 'The e-mail or password is incorrect');
  }
  await db.deleteFrom('login_failures').where('email', '=', email).execute();
  return deps.tokens.issue({ userId: user.id, merchantId: user.merchant_id });
}

async function recordFailure(db: Db, email: string, now: Date): Promise<void> {
  // Atomic increment: concurrent failures each count. The tenth starts a lock and resets the count.
  const lockUntil = new Date(now.getTime() + LOCKOUT_SECONDS * 1000);
  await db
    .insertInto('login_failures')
    .values({ email, failures: 1, locked_until: null, updated_at: now })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        failures: sql`case when login_failures.failures + 1 >= ${MAX_FAILED_LOGINS} then 0 else login_failures.failures + 1 end`,
        locked_until: sql`case when login_failures.failures + 1 >= ${MAX_FAILED_LOGINS} then ${lockUntil}::timestamptz else login_failures.locked_until end`,
        updated_at: now,
      }),
    )
    .execute();
}

function locked(until: Date, now: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return new AppError('ACCOUNT_LOCKED', 'Too many failed sign-in attempts; try again later', {
    details: { retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}
