import { sql } from 'kysely';
import type { AttemptJournal } from '../../processors/stripe/index.js';
import type { DbContext } from '../../storage/db-context.js';

/**
 * The Stripe connector's attempts kept in the store, so that the instance reconciling a timed-out
 * authorization (any instance, after any restart) can read what was sent. A note adds only what is not
 * known yet: what the store holds wins, as Stripe keeps the first request made under a key.
 */
export function storedAttemptJournal(ctx: Pick<DbContext, 'db'>): AttemptJournal {
  return {
    async read(reference) {
      const row = await ctx.db
        .selectFrom('processor_attempts')
        .select('facts')
        .where('reference', '=', reference)
        .executeTakeFirst();
      return row?.facts;
    },
    async note(reference, facts) {
      await ctx.db
        .insertInto('processor_attempts')
        .values({ reference, facts: JSON.stringify(facts) })
        .onConflict((c) =>
          c.column('reference').doUpdateSet({ facts: sql`excluded.facts || processor_attempts.facts` }),
        )
        .execute();
    },
  };
}
