import { sql } from 'kysely';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { hot } from '../../src/storage/prepared.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';

// A hot statement (prepared.ts) the server no longer knows on its connection: a transaction pooler
// handed out another server connection, or the statements were deallocated, as here. The process stops
// naming statements; the refused one is sent again unnamed when it ran outside a transaction block
// (the payment's hot statements do: the pending insert and the settle of a synchronous answer), and
// its error goes to the caller inside one, whose transaction it aborted.
// Needs a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
let databaseUrl: string;
const opened: Storage[] = [];
beforeAll(async () => {
  databaseUrl = await freshPostgresDatabaseUrl();
});
afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close();
});

/** One connection, so the statement is prepared, deallocated and run again on the same session. */
async function onePreparingConnection(): Promise<Storage> {
  const storage = await openStorage({ databaseUrl, poolSize: 1, preparedStatements: true });
  opened.push(storage);
  return storage;
}

const next = (db: Storage['db'], n: number) =>
  db.executeQuery(hot('forgotten_probe', sql<{ next: number }>`select ${n}::int + 1 as next`.compile(db)));

async function prepareThenForget(db: Storage['db']): Promise<void> {
  expect((await next(db, 1)).rows).toEqual([{ next: 2 }]);
  const prepared = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
  expect(prepared.rows.map((row) => row.name)).toContainEqual(expect.stringMatching(/^forgotten_probe_/));
  await sql`deallocate all`.execute(db);
}

it('runs a hot statement the server forgot again, unnamed, when it ran outside a transaction', async () => {
  const { db } = await onePreparingConnection();
  await prepareThenForget(db);
  expect((await next(db, 2)).rows).toEqual([{ next: 3 }]);
  // Named no more: nothing prepared again on the connection.
  expect((await next(db, 3)).rows).toEqual([{ next: 4 }]);
  expect((await sql`select name from pg_prepared_statements`.execute(db)).rows).toEqual([]);
});

it('leaves the refusal to the caller inside a transaction, which it aborted', async () => {
  const { db } = await onePreparingConnection();
  await prepareThenForget(db);
  const inTransaction = db.transaction().execute(async (trx) => {
    await sql`select 1`.execute(trx);
    return next(trx, 2);
  });
  await expect(inTransaction).rejects.toMatchObject({ code: '26000' });
  // The caller's retry, in a transaction again, runs unnamed.
  const retried = await db.transaction().execute((trx) => next(trx, 2));
  expect(retried.rows).toEqual([{ next: 3 }]);
});
