import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { AccountLinkKind } from './tables.js';

// ---- failed sign-ins, per typed e-mail (whether or not the account exists)

/** The lock of this e-mail from this address and the e-mail's account-wide guard, in one round trip. */
export async function findLocks(
  db: Db,
  email: string,
  address: string,
): Promise<{ lockedUntil: Date | null; guardedUntil: Date | null }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('login_failures')
        .select('locked_until')
        .where('email', '=', email)
        .where('address', '=', address)
        .as('locked_until'),
      eb.selectFrom('sign_in_guards').select('guarded_until').where('email', '=', email).as('guarded_until'),
    ])
    .executeTakeFirstOrThrow();
  return { lockedUntil: row.locked_until ?? null, guardedUntil: row.guarded_until ?? null };
}

/**
 * One more failure of the e-mail from the address, atomically (concurrent failures each count). The
 * `maxFailures`-th starts a lock until `lockUntil` and resets the count. True when this one locked.
 */
export async function recordFailure(
  db: Db,
  attempt: { email: string; address: string },
  now: Date,
  policy: { maxFailures: number; lockUntil: Date },
): Promise<boolean> {
  const row = await db
    .insertInto('login_failures')
    .values({ email: attempt.email, address: attempt.address, failures: 1, locked_until: null, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['email', 'address']).doUpdateSet({
        failures: sql`case when login_failures.failures + 1 >= ${policy.maxFailures} then 0 else login_failures.failures + 1 end`,
        locked_until: sql`case when login_failures.failures + 1 >= ${policy.maxFailures} then ${policy.lockUntil}::timestamptz else login_failures.locked_until end`,
        updated_at: now,
      }),
    )
    .returning('locked_until')
    .executeTakeFirstOrThrow();
  return row.locked_until?.getTime() === policy.lockUntil.getTime();
}

/**
 * One more failure of the e-mail from any address, counted in windows that start with a failure and last
 * `windowMs`. The `maxFailures`-th within one window guards the e-mail until `guardUntil` and starts the
 * count again. True when this one started the guard.
 */
export async function recordAccountFailure(
  db: Db,
  email: string,
  now: Date,
  policy: { maxFailures: number; windowStartedAfter: Date; guardUntil: Date },
): Promise<boolean> {
  const inWindow = sql<boolean>`sign_in_guards.window_started_at > ${policy.windowStartedAfter}::timestamptz`;
  const reachesMax = sql<boolean>`(${inWindow} and sign_in_guards.failures + 1 >= ${policy.maxFailures})`;
  const row = await db
    .insertInto('sign_in_guards')
    .values({ email, failures: 1, window_started_at: now, guarded_until: null })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        failures: sql`case when ${reachesMax} then 0 when ${inWindow} then sign_in_guards.failures + 1 else 1 end`,
        window_started_at: sql`case when ${inWindow} then sign_in_guards.window_started_at else ${now}::timestamptz end`,
        guarded_until: sql`case when ${reachesMax} then ${policy.guardUntil}::timestamptz else sign_in_guards.guarded_until end`,
      }),
    )
    .returning('guarded_until')
    .executeTakeFirstOrThrow();
  return row.guarded_until?.getTime() === policy.guardUntil.getTime();
}

/**
 * Claims the right to tell the account's merchant of a lock: true at most once per `since` period (the
 * first caller after it wins), so an attacker locking from many addresses sends one mail, not one each.
 */
export async function claimLockNotice(db: Db, email: string, now: Date, since: Date): Promise<boolean> {
  const row = await db
    .updateTable('sign_in_guards')
    .set({ noticed_at: now })
    .where('email', '=', email)
    .where((eb) => eb.or([eb('noticed_at', 'is', null), eb('noticed_at', '<=', since)]))
    .returning('email')
    .executeTakeFirst();
  return row !== undefined;
}

/** A successful sign-in from the address forgets its failures there (not the account-wide count). */
export async function clearFailures(db: Db, email: string, address: string): Promise<void> {
  await db.deleteFrom('login_failures').where('email', '=', email).where('address', '=', address).execute();
}

/** A password reset forgets every failure and lifts every lock of the e-mail: they were against the old password. */
export async function clearAllFailures(db: Db, email: string): Promise<void> {
  await db.deleteFrom('login_failures').where('email', '=', email).execute();
  await db.deleteFrom('sign_in_guards').where('email', '=', email).execute();
}

/** Counts no one added to since `before` (a lock or guard lasts far less): the tables keep what still matters. */
export async function deleteStaleFailures(db: Db, before: Date): Promise<number> {
  const failures = await db.deleteFrom('login_failures').where('updated_at', '<', before).executeTakeFirst();
  const guards = await db.deleteFrom('sign_in_guards').where('window_started_at', '<', before).executeTakeFirst();
  return Number(failures.numDeletedRows) + Number(guards.numDeletedRows);
}

// ---- users: password and token generation

/** A user still on their team, with what a password check and a new token need. */
export function findActiveUser(db: Db, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'merchant_id', 'email', 'role', 'password_hash', 'token_generation'])
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/** Who an access token names, if still on the team: one primary-key read per use of the token. */
export function findTokenHolder(db: Db, userId: number) {
  return db
    .selectFrom('users')
    .select(['merchant_id', 'token_generation'])
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The new password, and a new token generation: every access token issued before and every panel session
 * opened before is refused from now on (`keepSessionId`, the session that made the change, moves to the
 * new generation; the others are deleted too, so nothing of them stays). Answers the new generation.
 */
export async function replacePassword(
  db: Db,
  input: { userId: number; passwordHash: string; keepSessionId?: number; now: Date },
): Promise<number> {
  const { token_generation: generation } = await db
    .updateTable('users')
    .set((eb) => ({ password_hash: input.passwordHash, token_generation: eb('token_generation', '+', 1) }))
    .where('id', '=', input.userId)
    .returning('token_generation')
    .executeTakeFirstOrThrow();
  let others = db.deleteFrom('panel_sessions').where('user_id', '=', input.userId);
  if (input.keepSessionId !== undefined) {
    await db
      .updateTable('panel_sessions')
      .set({ token_generation: generation })
      .where('id', '=', input.keepSessionId)
      .where('user_id', '=', input.userId)
      .execute();
    others = others.where('id', '!=', input.keepSessionId);
  }
  await others.execute();
  // The user's open links were for the old password (a reset) or sign-in with it: they end too.
  await db
    .updateTable('account_links')
    .set({ used_at: input.now })
    .where('user_id', '=', input.userId)
    .where('used_at', 'is', null)
    .execute();
  return generation;
}

// ---- e-mailed single-use links

/** How many links the user was sent since `since`, of every kind: the mails a stranger can cause are few. */
export async function countLinksSince(db: Db, userId: number, since: Date): Promise<number> {
  const row = await db
    .selectFrom('account_links')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertLink(
  db: Db,
  values: {
    userId: number;
    merchantId: number;
    kind: AccountLinkKind;
    tokenHash: string;
    tokenNonce: string;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<number> {
  const row = await db
    .insertInto('account_links')
    .values({
      user_id: values.userId,
      merchant_id: values.merchantId,
      kind: values.kind,
      token_hash: values.tokenHash,
      token_nonce: values.tokenNonce,
      created_at: values.createdAt,
      expires_at: values.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function setLinkNotice(db: Db, linkId: number, noticeId: number): Promise<void> {
  await db.updateTable('account_links').set({ notice_id: noticeId }).where('id', '=', linkId).execute();
}

/** The link an e-mail notice is for (its mail is composed at send time). */
export function findLinkByNotice(db: Db, noticeId: number) {
  return db.selectFrom('account_links').selectAll().where('notice_id', '=', noticeId).executeTakeFirst();
}

/**
 * The link of a token hash with its user (still on the team), locked so two uses of one link queue up
 * and the second finds it used.
 */
export function lockLinkByHash(db: Db, tokenHash: string, kind: AccountLinkKind) {
  return db
    .selectFrom('account_links as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select([
      'l.id',
      'l.expires_at',
      'l.used_at',
      'u.id as user_id',
      'u.merchant_id',
      'u.email',
      'u.role',
      'u.token_generation',
    ])
    .where('l.token_hash', '=', tokenHash)
    .where('l.kind', '=', kind)
    .where('u.removed_at', 'is', null)
    .forUpdate('l')
    .executeTakeFirst();
}

export async function markLinkUsed(db: Db, linkId: number, now: Date): Promise<void> {
  await db.updateTable('account_links').set({ used_at: now }).where('id', '=', linkId).execute();
}
