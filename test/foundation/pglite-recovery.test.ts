import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';

// The embedded store only: these are PGlite's failure modes, whatever store the rest of the suite uses.
const opened: Storage[] = [];
const scratch: string[] = [];
afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close();
});
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function embedded(dataDir = 'memory://'): Promise<Storage> {
  const storage = await openStorage({ dataDir });
  opened.push(storage);
  return storage;
}

/** A JSON document nested deeper than PostgreSQL-in-WebAssembly's parser has stack for. */
const tooDeep = (levels = 8_000) => '{"a":'.repeat(levels) + '{}' + '}'.repeat(levels);

const names = async (storage: Storage) =>
  (
    await storage.db
      .selectFrom('system_secrets')
      .select('name')
      .where('name', 'like', 'probe%')
      .orderBy('name')
      .execute()
  ).map((r) => r.name);

const write = (db: Storage['db'], name: string) =>
  db.insertInto('system_secrets').values({ name, value: 'x' }).execute();

describe('the embedded store after a failed statement', () => {
  it('rolls back a transaction whose statement failed in PostgreSQL, and the next write succeeds', async () => {
    const storage = await embedded();
    await expect(
      storage.db.transaction().execute(async (trx) => {
        await write(trx, 'probe-rolled-back');
        await sql`select 1 / 0`.execute(trx);
      }),
    ).rejects.toThrow(/division by zero/);
    await write(storage.db, 'probe-after');
    expect(await names(storage)).toEqual(['probe-after']);
    await storage.ping();
  });

  it('rolls back a transaction whose statement overflowed the engine stack, instead of answering nothing', async () => {
    const storage = await embedded();
    await expect(
      storage.db.transaction().execute(async (trx) => {
        await write(trx, 'probe-rolled-back');
        await sql`select ${tooDeep()}::jsonb`.execute(trx);
      }),
    ).rejects.toThrow(/could not run the statement/);
    await write(storage.db, 'probe-after');
    await storage.db.transaction().execute((trx) => write(trx, 'probe-in-transaction'));
    expect(await names(storage)).toEqual(['probe-after', 'probe-in-transaction']);
    await storage.ping();
  });

  it('stays usable after many such failures, in and out of transactions, objects and arrays', async () => {
    const storage = await embedded();
    for (let round = 0; round < 12; round++) {
      const deep = round % 2 === 0 ? tooDeep(8_000 + round * 1_000) : '['.repeat(50_000) + ']'.repeat(50_000);
      const statement = sql`insert into system_secrets (name, value) values (${`probe-lost-${round}`}, ${deep}::jsonb::text)`;
      const attempt =
        round % 3 === 0
          ? statement.execute(storage.db)
          : storage.db.transaction().execute((trx) => statement.execute(trx));
      await expect(attempt).rejects.toThrow(/could not run the statement/);
      await write(storage.db, `probe-${String(round).padStart(2, '0')}`);
    }
    expect(await names(storage)).toEqual(
      Array.from({ length: 12 }, (_, round) => `probe-${String(round).padStart(2, '0')}`),
    );
    await storage.ping();
  });

  // Opening an embedded store on disk twice takes seconds, more on a busy machine.
  it(
    'keeps what was committed on a store on disk, across a restart after such a failure',
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-recovery-'));
      scratch.push(dir);
      const first = await embedded(dir);
      await write(first.db, 'probe-before');
      await expect(sql`select ${tooDeep()}::jsonb`.execute(first.db)).rejects.toThrow(/could not run the statement/);
      await write(first.db, 'probe-after');
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const second = await embedded(dir);
      expect(await names(second)).toEqual(['probe-after', 'probe-before']);
    },
  );
});
