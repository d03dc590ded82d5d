import type { DbContext } from '../../storage/db-context.js';
import { AppError } from '../../errors.js';
import { queueNotice } from '../notifications/index.js';
import { claimLockNotice, deleteStaleFailures, findLocks, recordAccountFailure, recordFailure } from './repository.js';

/**
 * The lock-out (docs/decisions.md, "Sign-in lock-out"): "10 failed attempts lock the account for 30
 * minutes; the answer never says whether the e-mail exists", scoped so that nobody who only knows the
 * e-mail can keep its owner out.
 * - 10 consecutive failures of one e-mail from one client address lock that e-mail from that address for
 *   30 minutes (429 ACCOUNT_LOCKED): the owner signing in from elsewhere is unaffected.
 * - The safety net against guessing from many addresses: 50 failures of one e-mail from any addresses
 *   within 30 minutes guard it for 30 minutes. While guarded, a password alone signs in nowhere: every
 *   attempt gets the same 429, and a right one also gets a single-use sign-in link by e-mail, so the
 *   owner still gets in (with their mailbox) and the guesser learns nothing, not even a right guess.
 * Failures are counted per typed e-mail whether or not an account has it, so none of this reveals one.
 */
export const MAX_FAILED_LOGINS = 10;
export const LOCKOUT_SECONDS = 30 * 60;
export const ACCOUNT_GUARD_FAILURES = 50;
export const GUARD_SECONDS = 30 * 60;

/** One sign-in attempt: the typed e-mail (normalized) from a client address. */
export interface Attempt {
  email: string;
  address: string;
}

/**
 * Refuses an attempt from a locked address at once (neither counted nor checked); answers until when the
 * e-mail is guarded account-wide (null when it is not).
 */
export async function refuseLocked(ctx: DbContext, attempt: Attempt): Promise<Date | null> {
  const now = ctx.clock.now();
  const { lockedUntil, guardedUntil } = await findLocks(ctx.db, attempt.email, attempt.address);
  if (lockedUntil && lockedUntil > now) throw addressLocked(lockedUntil, now);
  return guardedUntil && guardedUntil > now ? guardedUntil : null;
}

/**
 * Counts a failed attempt: from its address, and account-wide unless the e-mail is guarded already (the
 * guard is not extended by the guesses it answers). The user's merchant hears of a lock, once per period.
 */
export async function countFailure(
  ctx: DbContext,
  attempt: Attempt,
  user: { merchant_id: number; email: string } | undefined,
  guarded: boolean,
): Promise<void> {
  const { db } = ctx;
  const now = ctx.clock.now();
  const lockedNow = await recordFailure(db, attempt, now, {
    maxFailures: MAX_FAILED_LOGINS,
    lockUntil: new Date(now.getTime() + LOCKOUT_SECONDS * 1000),
  });
  const guardedNow =
    !guarded &&
    (await recordAccountFailure(db, attempt.email, now, {
      maxFailures: ACCOUNT_GUARD_FAILURES,
      windowStartedAfter: new Date(now.getTime() - GUARD_SECONDS * 1000),
      guardUntil: new Date(now.getTime() + GUARD_SECONDS * 1000),
    }));
  // An e-mail with no account is locked and guarded just the same, silently.
  if (!user || !(lockedNow || guardedNow)) return;
  // The guard's notice always goes (it is at most one per guard); address locks share one per period.
  const since = guardedNow ? now : new Date(now.getTime() - LOCKOUT_SECONDS * 1000);
  if (!(await claimLockNotice(db, attempt.email, now, since))) return;
  await queueNotice(ctx, {
    merchantId: user.merchant_id,
    kind: 'account_locked',
    subject: 'Sign-in locked after repeated failed attempts',
    text: guardedNow
      ? `After ${ACCOUNT_GUARD_FAILURES} failed sign-in attempts for ${user.email} from several addresses within ${GUARD_SECONDS / 60} minutes, the password alone no longer signs in for the next ${GUARD_SECONDS / 60} minutes: a right password gets a single-use sign-in link by e-mail instead. If this was not you, change your password.`
      : `After ${MAX_FAILED_LOGINS} failed sign-in attempts for ${user.email} from the address ${attempt.address}, sign-in from that address is locked for ${LOCKOUT_SECONDS / 60} minutes; sign-in from elsewhere is not affected. If this was not you, change your password.`,
  });
}

/** Failures no one repeated for a day are forgotten: the counts of rotated e-mails do not pile up. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;

export function forgetStaleFailures(ctx: DbContext): Promise<number> {
  return deleteStaleFailures(ctx.db, new Date(ctx.clock.now().getTime() - FORGET_AFTER_MS));
}

function addressLocked(until: Date, now: Date): AppError {
  const retryAfter = secondsUntil(until, now);
  return new AppError('ACCOUNT_LOCKED', 'Too many failed sign-in attempts; try again later', {
    details: { retryAfter },
    retryAfterSeconds: retryAfter,
  });
}

/**
 * The one answer to every attempt on a guarded e-mail, right or wrong password, known or unknown e-mail:
 * `details.emailLink` tells the panel to say "check your mail".
 */
export function guardedAnswer(until: Date, now: Date): AppError {
  const retryAfter = secondsUntil(until, now);
  return new AppError(
    'ACCOUNT_LOCKED',
    'Too many failed sign-in attempts for this account from several addresses: if the password was right, a single-use sign-in link was sent to its e-mail address',
    { details: { retryAfter, emailLink: true }, retryAfterSeconds: retryAfter },
  );
}

const secondsUntil = (until: Date, now: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
