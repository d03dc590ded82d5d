import { expect, it } from 'vitest';
import { groupCommit, groupsCommits, type GroupStats } from '../../src/storage/group-commit.js';
import { openStorage } from '../../src/storage/db.js';
import { UnreplicatedCommitError } from '../../src/storage/unreplicated-commit.js';
import { freshDatabaseUrl } from '../helpers/database.js';

// The grouping itself, with statements that are functions here: which calls go alone, which go
// together, and who gets which answer when the database refuses a group or the connection is lost.
// test/payments/group-commit.test.ts runs it on the real store, through the gateway.

/** A statement that answers when the test says so. */
function held<T>() {
  let release!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  return { promise, release, fail };
}

const refusal = Object.assign(new Error('duplicate key value violates unique constraint'), {
  code: '23505',
  severity: 'ERROR',
});

function recorder(inFlight = 1) {
  const alone: number[] = [];
  const groups: number[][] = [];
  const pending: Array<ReturnType<typeof held<unknown>>> = [];
  const stats: GroupStats = { statements: 0, rows: 0, refused: 0 };
  const group = groupCommit<number, string>({
    inFlight,
    maxGroup: 3,
    stats,
    one: async (n) => {
      alone.push(n);
      const statement = held<unknown>();
      pending.push(statement);
      await statement.promise;
      return n === 0 ? undefined : `one:${n}`;
    },
    many: async (ns) => {
      groups.push(ns);
      const statement = held<unknown>();
      pending.push(statement);
      await statement.promise;
      return ns.map((n) => (n % 2 === 0 ? undefined : `many:${n}`));
    },
  });
  return { group, alone, groups, pending, stats };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

it('sends a call alone while fewer than inFlight are on their way, and the calls that arrive meanwhile together', async () => {
  const { group, alone, groups, pending, stats } = recorder(1);
  const first = group.run(1);
  await settled();
  expect(alone).toEqual([1]);
  const later = [3, 4, 5, 7].map((n) => group.run(n));
  await settled();
  expect(groups).toEqual([]); // they wait for the statement on its way

  pending.shift()!.release(undefined);
  expect(await first).toBe('one:1');
  await settled();
  expect(groups).toEqual([[3, 4, 5]]); // at most maxGroup, in arrival order
  pending.shift()!.release(undefined);
  await settled();
  expect(alone).toEqual([1, 7]); // the one left over goes alone
  pending.shift()!.release(undefined);
  // Each call gets its own row: undefined where its move did not apply.
  expect(await Promise.all(later)).toEqual(['many:3', undefined, 'many:5', 'one:7']);
  expect(stats).toEqual({ statements: 1, rows: 3, refused: 0 });
});

it('runs each call of a group the database refused on its own, each with its own answer', async () => {
  const stats: GroupStats = { statements: 0, rows: 0, refused: 0 };
  const gate = held<void>();
  const group = groupCommit<number, string>({
    inFlight: 1,
    maxGroup: 10,
    stats,
    one: async (n) => {
      await gate.promise;
      if (n === 2) throw refusal;
      return `alone:${n}`;
    },
    many: async () => {
      throw refusal;
    },
  });
  const first = group.run(0);
  const rest = [1, 2, 3].map((n) => group.run(n).catch((error: Error) => error));
  gate.release();
  expect(await first).toBe('alone:0');
  expect(await Promise.all(rest)).toEqual(['alone:1', refusal, 'alone:3']);
  expect(stats).toEqual({ statements: 0, rows: 0, refused: 1 });
});

const lostConnection = new Error('Connection terminated unexpectedly');
const sessionEnded = Object.assign(new Error('terminating connection due to administrator command'), {
  code: '57P01',
  severity: 'FATAL',
});

it.each([
  ['a lost connection', lostConnection],
  ['a FATAL error (the session ended)', sessionEnded],
  [
    'a commit synchronous replication did not confirm',
    new UnreplicatedCommitError('canceling wait for synchronous replication due to user request'),
  ],
])(
  'gives %s to every call of the group, and runs none of them again: the commit may have happened',
  async (_, error) => {
    const { group, alone, pending } = recorder(1);
    const first = group.run(1);
    const rest = [3, 5].map((n) => group.run(n).catch((reason: Error) => reason));
    await settled();
    pending.shift()!.release(undefined);
    await first;
    await settled();
    pending.shift()!.fail(error);
    expect(await Promise.all(rest)).toEqual([error, error]);
    expect(alone).toEqual([1]); // run again, a move could apply twice
  },
);

it('keeps inFlight statements on their way at once', async () => {
  const { group, alone, groups, pending } = recorder(2);
  const calls = [1, 3, 5, 7].map((n) => group.run(n));
  await settled();
  expect(alone).toEqual([1, 3]);
  expect(groups).toEqual([]);
  pending.shift()!.release(undefined);
  await settled();
  expect(groups).toEqual([[5, 7]]);
  for (const statement of pending.splice(0)) statement.release(undefined);
  expect(await Promise.all(calls)).toEqual(['one:1', 'one:3', 'many:5', 'many:7']);
});

it('groups only on a store that groups, and never inside a caller’s transaction', async () => {
  const grouping = await openStorage({ databaseUrl: await freshDatabaseUrl(), groupCommit: true });
  const plain = await openStorage({ databaseUrl: await freshDatabaseUrl() });
  try {
    expect(groupsCommits(grouping.db)).toBe(true);
    expect(groupsCommits(plain.db)).toBe(false);
    // The caller's transaction holds one connection and commits once: its statements go as they come.
    await grouping.db.transaction().execute(async (trx) => expect(groupsCommits(trx)).toBe(false));
  } finally {
    await grouping.close();
    await plain.close();
  }
});
