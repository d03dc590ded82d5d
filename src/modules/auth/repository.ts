import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';

/** Failed sign-ins per typed e-mail (whether or not the account exists). */

export async function findLock(db: Db, email: string) {
  return db.selectFrom('login_failures').select('locked_until').where('email', '=', email).executeTakeFirst();
}

/** Atomic increment: concurrent failures each count. The `maxFailures`-th starts a lock until `lockUntil` and resets the count. */
export async function recordFailure(
  db: Db,
  email: string,
  now: Date,
  policy: { maxFailures: number; lockUntil: Date },
): Promise<boolean> {
  const row = await db
    .insertInto('login_failures')
    .values({ email, failures: 1, locked_until: null, updated_at: now })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        failures: sql`case when login_failures.failures + 1 >= ${policy.maxFailures} then 0 else login_failures.failures + 1 end`,
        locked_until: sql`case when login_failures.failures + 1 >= ${policy.maxFailures} then ${policy.lockUntil}::timestamptz else login_failures.locked_until end`,
        updated_at: now,
      }),
    )
    .returning('locked_until')
    .executeTakeFirstOrThrow();
  // True when this failure locked the account.
  return row.locked_until?.getTime() === policy.lockUntil.getTime();
}

export async function clearFailures(db: Db, email: string): Promise<void> {
  await db.deleteFrom('login_failures').where('email', '=', email).execute();
}
