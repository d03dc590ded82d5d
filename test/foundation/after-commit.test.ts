import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { afterCommit, onEffectFailure, runTransaction } from '../../src/storage/after-commit.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';

// What is counted after a commit (payments by status, in the metrics) must never be counted for a
// transaction that rolled back, nor before its commit answered.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ databaseUrl: await freshDatabaseUrl() });
});
afterAll(async () => storage?.close());

const write = (db: Storage['db'], name: string) =>
  db.insertInto('system_secrets').values({ name, value: 'x' }).execute();
const stored = async (name: string) =>
  (await storage.db.selectFrom('system_secrets').select('name').where('name', '=', name).executeTakeFirst()) !==
  undefined;

it('runs an effect registered in a transaction once it has committed, and never for one rolled back', async () => {
  const ran: string[] = [];
  await runTransaction(storage.db, async (trx) => {
    await write(trx, 'committed');
    afterCommit(trx, () => ran.push('committed'));
    await sql`select 1`.execute(trx);
    expect(ran).toEqual([]);
  });
  expect(ran).toEqual(['committed']);

  const failure = runTransaction(storage.db, async (trx) => {
    await write(trx, 'rolled-back');
    afterCommit(trx, () => ran.push('rolled-back'));
    throw new Error('the work failed after its write');
  });
  await expect(failure).rejects.toThrow('the work failed after its write');
  expect(ran).toEqual(['committed']);
  expect([await stored('committed'), await stored('rolled-back')]).toEqual([true, false]);
});

it('runs an effect at once outside a transaction, and refuses a transaction it could not follow', async () => {
  const ran: string[] = [];
  afterCommit(storage.db, () => ran.push('autocommitted'));
  expect(ran).toEqual(['autocommitted']);
  const unfollowed = storage.db.transaction().execute(async (trx) => afterCommit(trx, () => ran.push('unfollowed')));
  await expect(unfollowed).rejects.toThrow(/runTransaction/);
  expect(ran).toEqual(['autocommitted']);
});

it('answers with what committed when an effect throws, and still runs the effects after it', async () => {
  const ran: string[] = [];
  const reported: unknown[] = [];
  onEffectFailure((error) => reported.push(error));
  const result = await runTransaction(storage.db, async (trx) => {
    await write(trx, 'effect-fails');
    afterCommit(trx, () => {
      throw new Error('a listener failed');
    });
    afterCommit(trx, () => ran.push('second'));
    return 'committed answer';
  });
  expect(result).toBe('committed answer');
  expect(ran).toEqual(['second']);
  expect(reported).toMatchObject([{ message: 'a listener failed' }]);
  expect(await stored('effect-fails')).toBe(true);
});
