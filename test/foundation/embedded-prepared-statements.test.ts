import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { hot } from '../../src/storage/prepared.js';

// On the embedded store, the hot statements of a payment are named prepared statements too
// (pglite-dialect.ts runPrepared): parsed once, then only bound and executed. What a caller gets
// must not change: the same rows with the same types, the same errors, a usable store after them.
let prepared: Storage;
let plain: Storage;
beforeAll(async () => {
  prepared = await openStorage({ dataDir: 'memory://', preparedStatements: true });
  plain = await openStorage({ dataDir: 'memory://', preparedStatements: false });
  for (const { db } of [prepared, plain]) {
    await sql`create table probe (id bigserial primary key, name text unique, doc jsonb, at timestamptz, ok boolean)`.execute(
      db,
    );
  }
});
afterAll(async () => {
  await prepared?.close();
  await plain?.close();
});

const insert = (db: Storage['db'], name: string | null, at: Date, ok: boolean | null) =>
  db.executeQuery(
    hot(
      'embedded_probe',
      sql<{ id: number; name: string | null; doc: unknown; at: Date; ok: boolean | null }>`
        insert into probe (name, doc, at, ok) values (${name}, ${JSON.stringify({ name, list: [1, 2] })}::jsonb, ${at}, ${ok})
        returning *`.compile(db),
    ),
  );

const preparedNames = async (db: Storage['db']) =>
  (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)).rows.map((row) => row.name);

it('runs a hot statement as a named prepared statement, with the rows and types an unnamed one gives', async () => {
  const at = new Date('2026-11-25T03:00:00.123Z');
  for (const [i, { db }] of [prepared, plain].entries()) {
    const first = await insert(db, 'first', at, true);
    const second = await insert(db, null, new Date(at.getTime() + 1000), null);
    expect(first.rows).toEqual([{ id: 1, name: 'first', doc: { name: 'first', list: [1, 2] }, at, ok: true }]);
    expect(second.rows).toEqual([
      { id: 2, name: null, doc: { name: null, list: [1, 2] }, at: new Date(at.getTime() + 1000), ok: null },
    ]);
    const names = await preparedNames(db);
    if (i === 0) expect(names).toContainEqual(expect.stringMatching(/^embedded_probe_/));
    else expect(names).toEqual([]);
  }
});

it('reports a failing prepared statement as PostgreSQL does, and the store goes on working', async () => {
  const { db } = prepared;
  await expect(insert(db, 'twice', new Date(), false)).resolves.toMatchObject({ rows: [{ name: 'twice' }] });
  await expect(insert(db, 'twice', new Date(), false)).rejects.toMatchObject({ code: '23505' });
  await expect(insert(db, 'after', new Date(), false)).resolves.toMatchObject({ rows: [{ name: 'after' }] });

  // Inside a transaction the failure aborts it, and nothing of it stays.
  const failing = db.transaction().execute(async (trx) => {
    await insert(trx, 'in-transaction', new Date(), true);
    await insert(trx, 'twice', new Date(), true);
  });
  await expect(failing).rejects.toMatchObject({ code: '23505' });
  const names = await db
    .selectFrom('probe' as never)
    .select(sql<string>`name`.as('name'))
    .execute();
  expect(names.map((row) => row.name)).not.toContain('in-transaction');
  await expect(insert(db, 'last', new Date(), true)).resolves.toMatchObject({ rows: [{ name: 'last' }] });
});

it('prepares a statement again when PostgreSQL has forgotten it, and runs it again outside a transaction', async () => {
  const { db } = prepared;
  await sql`deallocate all`.execute(db);
  await expect(insert(db, 'prepared-again', new Date(), true)).resolves.toMatchObject({
    rows: [{ name: 'prepared-again' }],
  });
  expect(await preparedNames(db)).toContainEqual(expect.stringMatching(/^embedded_probe_/));

  // Inside a transaction the refusal has aborted it: the caller gets the error and runs it again.
  await sql`deallocate all`.execute(db);
  const refused = db.transaction().execute((trx) => insert(trx, 'refused', new Date(), true));
  await expect(refused).rejects.toMatchObject({ code: '26000' });
  await expect(insert(db, 'then-prepared', new Date(), true)).resolves.toMatchObject({
    rows: [{ name: 'then-prepared' }],
  });
});
