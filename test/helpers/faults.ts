import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.js';

/**
 * Makes the database refuse some writes, as a failing store would (a full disk, a failover): a
 * trigger named `name` raises `message` before `event` (`insert`, `update of response_status`, …) on
 * the rows of `table` that match `when` (a condition on `new` or `old`). Returns what lifts it.
 */
export async function refuseWrites(
  db: Db,
  fault: { name: string; table: string; event: string; when: string; message: string },
): Promise<() => Promise<void>> {
  const { name, table } = fault;
  await sql
    .raw(
      `create or replace function ${name}() returns trigger language plpgsql as $$
       begin raise exception '${fault.message}'; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${name} before ${fault.event} on ${table} for each row
       when (${fault.when}) execute function ${name}()`,
    )
    .execute(db);
  return async () => {
    await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    await sql.raw(`drop function if exists ${name}()`).execute(db);
  };
}
