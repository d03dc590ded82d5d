import { cached } from '../lib/cached.js';
import { OneMoreAfter } from '../lib/one-more-after.js';

/**
 * Group commit for a hot statement (docs/performance.md, "Group commit"): calls of one statement shape
 * that arrive while `inFlight` of its statements are already on their way to the database wait for
 * one of them to come back, then go together as one multi-row statement: one round trip, one plan
 * execution and one commit for all of them. A call that finds fewer in flight goes at once, alone, so
 * at low load nothing waits and the single-row statement is what runs. Nothing is answered before
 * the commit of the statement that carried it.
 *
 * A multi-row statement the database refused (a unique violation, a deadlock between two groups, a
 * serialization failure) committed none of its rows: each call is then run again on its own and gets
 * its own answer. Any other failure (a lost connection, where the commit may have happened) goes to
 * every call of the group, as it would have gone to each call alone.
 */
export interface GroupCommit<I, R> {
  run(item: I): Promise<R | undefined>;
}

export interface GroupCommitOptions<I, R> {
  /** One call alone: the single-row statement. */
  one: (item: I) => Promise<R | undefined>;
  /** Several calls in one statement: each call's result at its index, undefined where it did not apply. */
  many: (items: I[]) => Promise<Array<R | undefined>>;
  /** Statements of this shape on their way at once before calls wait to be grouped. */
  inFlight: number;
  /** Calls per multi-row statement at most. */
  maxGroup: number;
  /** Counted here (the store's, groupStats). */
  stats: GroupStats;
}

/**
 * The grouping of a payment's two statements (begin, settle), and of the record of a notification's
 * attempt: statements of one shape on their way before calls wait to be grouped, and calls per group;
 * measured in docs/performance.md ("Group commit"). Their grouped statements are not prepared (not marked `hot`, prepared.ts): a
 * generic plan made while the tables are small joins a group's rows to them by scanning the whole
 * table, and keeps doing so as they grow; planned each time, with the group's own values and the
 * tables' current size, they find each row by its primary key. The planning is shared by the group.
 */
const HOT_GROUPING = { inFlight: 1, maxGroup: 64 };

interface Waiting<I, R> {
  item: I;
  resolve: (value: R | undefined) => void;
  reject: (error: unknown) => void;
}

export function groupCommit<I, R>(options: GroupCommitOptions<I, R>): GroupCommit<I, R> {
  const { stats } = options;
  const queue: Array<Waiting<I, R>> = [];

  const send = async (group: Array<Waiting<I, R>>) => {
    if (group.length === 1) {
      await options.one(group[0].item).then(group[0].resolve, group[0].reject);
      return;
    }
    try {
      const results = await options.many(group.map((waiting) => waiting.item));
      stats.statements++;
      stats.rows += group.length;
      group.forEach((waiting, index) => waiting.resolve(results[index]));
    } catch (error) {
      if (!refusedByDatabase(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      stats.refused++;
      await Promise.all(group.map((waiting) => options.one(waiting.item).then(waiting.resolve, waiting.reject)));
    }
  };

  // Calls that arrive while `inFlight` statements are on their way go in the one sent after one of them.
  const sends = new OneMoreAfter<void>({
    limit: options.inFlight,
    // send answers every call of its group itself, and never fails.
    onError: () => {},
  });
  const sendQueued = async () => {
    const group = queue.splice(0, options.maxGroup);
    if (queue.length > 0) void sends.run(sendQueued);
    if (group.length > 0) await send(group);
  };

  return {
    run: (item) =>
      new Promise<R | undefined>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        void sends.run(sendQueued);
      }),
  };
}

/**
 * The database's own refusal of the statement (an SQLSTATE at severity ERROR): the
 * statement's transaction rolled back, so none of its rows happened. A network error carries no SQLSTATE;
 * a FATAL one ends the session, and is treated like a lost connection.
 */
function refusedByDatabase(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && severity === 'ERROR';
}

/** What a store's groups did: multi-row statements sent, the calls they carried, and those refused (then run alone). */
export interface GroupStats {
  statements: number;
  rows: number;
  refused: number;
}

/**
 * A store's Kysely instance (any object here: db.ts imports this file). A caller's transaction on it is
 * another instance, never registered, so nothing inside a transaction is grouped.
 */
type Store = object;

/** The stores whose hot statements are grouped (StorageOptions.groupCommit): their groups, by statement and shape, and counts. */
const grouping = new WeakMap<Store, { groups: Map<string, GroupCommit<unknown, unknown>>; stats: GroupStats }>();

export const enableGroupCommit = (db: Store): void =>
  void grouping.set(db, { groups: new Map(), stats: { statements: 0, rows: 0, refused: 0 } });

/** Whether a statement on `db` may be grouped: only on a store that groups (never a transaction on it). */
export const groupsCommits = (db: Store): boolean => grouping.has(db);

/** Undefined on a store that does not group. */
export const groupStats = (db: Store): GroupStats | undefined => grouping.get(db)?.stats;

/**
 * The store's group of one hot statement and shape (`key` names both), made on first use with
 * HOT_GROUPING and the store's counts; only for a store that `groupsCommits`.
 */
export function hotGroup<I, R>(
  db: Store,
  key: string,
  make: () => Pick<GroupCommitOptions<I, R>, 'one' | 'many'>,
): GroupCommit<I, R> {
  const store = grouping.get(db);
  if (!store) throw new Error('hotGroup: this store does not group commits');
  return cached(store.groups, key, () =>
    groupCommit({ ...HOT_GROUPING, stats: store.stats, ...make() }),
  ) as GroupCommit<I, R>;
}
