import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';

// The embedded store on disk answers a write only once its commit is on disk (pglite-wal-sync.ts):
// PGlite alone would answer it once it is in the operating system's cache, lost if the machine
// stops. A machine cannot be stopped in a test, so these watch the disk flushes themselves, through
// Node's file calls, which are what reach the disk: what was flushed, and when, against the answer.
type Flush = { path: string; startedAt: number; doneAt?: number };

const stores: { storage: Storage; dataDir: string }[] = [];
let db: Storage['db'];
beforeAll(async () => {
  db = await openOnDisk();
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  for (const { storage, dataDir } of stores) {
    await storage.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// For the tests that create and open a whole store in their body (initdb in a child, then the
// migrations, each commit flushed): 5–10 s alone, past the default 30 s beside the rest of the
// suite. A bound against a hang.
const opensAStore = { timeout: 120_000 };

const pathOfFd = (fd: number) => fs.readlinkSync(`/proc/self/fd/${fd}`);
const isWal = (file: string) => file.includes('/pg_wal/');

async function openOnDisk() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'durability-'));
  const storage = await openStorage({ dataDir });
  stores.push({ storage, dataDir });
  await sql`create table probe (id bigserial primary key, note text not null)`.execute(storage.db);
  return storage.db;
}

/** Tells `seen` of every write through Node's file calls (the file, and where in it), then makes it. */
function watchWrites(seen: (file: string, position: number, fd: number) => void) {
  const writeSync = fs.writeSync.bind(fs) as (...args: unknown[]) => number;
  vi.spyOn(fs, 'writeSync').mockImplementation(((
    fd: number,
    buffer: unknown,
    offset: unknown,
    length: unknown,
    position: number,
  ) => {
    seen(pathOfFd(fd), position, fd);
    return writeSync(fd, buffer, offset, length, position);
  }) as typeof fs.writeSync);
}

/** Records the background flushes, each finishing `delayMs` late (a slow disk), or failing with `error`. */
function watchBackgroundFlushes(delayMs: number, error?: NodeJS.ErrnoException) {
  const flushes: Flush[] = [];
  const fdatasync = fs.fdatasync.bind(fs);
  vi.spyOn(fs, 'fdatasync').mockImplementation((fd: number, done: (error: Error | null) => void) => {
    const flush: Flush = { path: pathOfFd(fd), startedAt: performance.now() };
    flushes.push(flush);
    fdatasync(fd, (result) =>
      setTimeout(() => {
        flush.doneAt = performance.now();
        done(error ?? result);
      }, delayMs),
    );
  });
  return flushes;
}

it('keeps fsync on for the store on disk, with the WAL flushed by fsync()', async () => {
  const setting = async (name: string) =>
    (await sql<{ setting: string }>`select setting from pg_settings where name = ${name}`.execute(db)).rows[0].setting;
  expect(await setting('fsync')).toBe('on');
  expect(await setting('wal_sync_method')).toBe('fsync');
  expect(await setting('synchronous_commit')).toBe('on');
});

it('answers a write only after its WAL has been flushed to disk', async () => {
  const flushes = watchBackgroundFlushes(150);
  const begun = performance.now();
  await sql`insert into probe (note) values ('acknowledged')`.execute(db);
  const answeredAt = performance.now();

  const walFlushes = flushes.filter((flush) => isWal(flush.path) && flush.startedAt >= begun);
  expect(walFlushes.length).toBeGreaterThan(0);
  expect(walFlushes.every((flush) => flush.doneAt !== undefined && flush.doneAt <= answeredAt)).toBe(true);

  // A transaction likewise: its commit is the write that waits.
  const flushesBefore = flushes.length;
  await db.transaction().execute(async (trx) => {
    await sql`insert into probe (note) values ('in a transaction')`.execute(trx);
  });
  expect(flushes.slice(flushesBefore).some((flush) => isWal(flush.path) && flush.doneAt !== undefined)).toBe(true);
});

it('answers a read only once the commits before it are on disk, so no answer rests on a row that may be lost', async () => {
  const flushes = watchBackgroundFlushes(300);
  const write = sql`insert into probe (note) values ('being flushed')`.execute(db);
  // Queued behind the insert: it sees the row as soon as it has committed, while the row is being flushed.
  const read = sql<{ n: number }>`select count(*)::int as n from probe where note = 'being flushed'`.execute(db);
  let readAt = 0;
  const [, seen] = await Promise.all([write, read.finally(() => (readAt = performance.now()))]);
  expect(seen.rows[0].n).toBe(1);
  const walFlushes = flushes.filter((flush) => isWal(flush.path));
  expect(walFlushes.length).toBeGreaterThan(0);
  expect(walFlushes.every((flush) => flush.doneAt !== undefined && flush.doneAt <= readAt)).toBe(true);
});

it("syncs a new store's files to disk before its first commit", opensAStore, async () => {
  const synced = new Set<string>();
  const fsyncSync = fs.fsyncSync.bind(fs);
  vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    synced.add(pathOfFd(fd));
    fsyncSync(fd);
  });
  await openOnDisk();
  const pgdata = path.join(stores[stores.length - 1].dataDir, 'pgdata');
  for (const file of ['PG_VERSION', 'global/pg_control', 'pg_wal', '.']) {
    expect(synced).toContain(path.resolve(pgdata, file));
  }
});

it('flushes once for writes that committed while a flush was under way (group commit)', async () => {
  const count = async () => (await sql<{ n: number }>`select count(*)::int as n from probe`.execute(db)).rows[0].n;
  const before = await count();
  const flushes = watchBackgroundFlushes(30);
  await Promise.all(
    Array.from({ length: 40 }, (_, i) => sql`insert into probe (note) values (${`concurrent ${i}`})`.execute(db)),
  );
  const walFlushes = flushes.filter((flush) => isWal(flush.path));
  expect(walFlushes.length).toBeGreaterThan(0);
  expect(walFlushes.length).toBeLessThanOrEqual(10);
  expect((await count()) - before).toBe(40);
});

it('writes no table page to its file while WAL written before it is not yet on disk', async () => {
  const events: { kind: 'wal written' | 'wal flushed' | 'page written'; at: number }[] = [];
  const record = (kind: (typeof events)[number]['kind']) => events.push({ kind, at: performance.now() });
  // Background flushes take long here, so the checkpoint's page writes come while one is under way.
  const flushes = watchBackgroundFlushes(1_000);
  const fdatasyncSync = fs.fdatasyncSync.bind(fs);
  vi.spyOn(fs, 'fdatasyncSync').mockImplementation((fd: number) => {
    fdatasyncSync(fd);
    if (isWal(pathOfFd(fd))) record('wal flushed');
  });
  watchWrites((file, position, fd) => {
    if (isWal(file)) record('wal written');
    // A page written over; new empty pages added at the end of a table carry nothing WAL describes.
    if (file.includes('/base/') && position < fs.fstatSync(fd).size) record('page written');
  });

  // More rows than the store's 16 MB of buffers hold: it writes pages out in the middle of the
  // statement, each after WAL it wrote; then the checkpoint, during the commit's slow flush.
  const insert = sql`insert into probe (note) select repeat('x', 200) || n from generate_series(1, 100000) n`.execute(
    db,
  );
  const checkpoint = sql`checkpoint`.execute(db);
  await Promise.all([insert, checkpoint]);

  for (const flush of flushes) if (isWal(flush.path)) events.push({ kind: 'wal flushed', at: flush.doneAt! });
  events.sort((a, b) => a.at - b.at);
  let unflushedWal = false;
  let pagesAfterWal = 0;
  for (const event of events) {
    if (event.kind === 'wal written') unflushedWal = true;
    if (event.kind === 'wal flushed') unflushedWal = false;
    if (event.kind === 'page written') {
      expect(unflushedWal).toBe(false);
      if (events.some((other) => other.kind === 'wal written' && other.at < event.at)) pagesAfterWal++;
    }
  }
  expect(pagesAfterWal).toBeGreaterThan(0);
});

it('answers a write whose flush failed with an error, and refuses every statement after it', opensAStore, async () => {
  const db = await openOnDisk(); // a store of its own: this one stops working
  watchBackgroundFlushes(0, Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  await expect(sql`insert into probe (note) values ('not durable')`.execute(db)).rejects.toThrow(
    /could not write to disk/,
  );
  vi.restoreAllMocks();
  await expect(sql`select 1`.execute(db)).rejects.toThrow(/restart the gateway/);
});

it('closes no WAL segment while WAL written to it is not yet on disk', async () => {
  type Event = { kind: 'written' | 'flush started' | 'flushed' | 'closed'; path: string; at: number };
  const events: Event[] = [];
  const record = (kind: Event['kind'], fd: number) => {
    const file = pathOfFd(fd);
    if (isWal(file)) events.push({ kind, path: file, at: performance.now() });
  };
  // The switch's own flush takes a second in the background: the next write opens a new segment and
  // closes the old one well before it ends.
  const flushes = watchBackgroundFlushes(1_000);
  const fdatasyncSync = fs.fdatasyncSync.bind(fs);
  vi.spyOn(fs, 'fdatasyncSync').mockImplementation((fd: number) => {
    record('flush started', fd);
    fdatasyncSync(fd);
    record('flushed', fd);
  });
  watchWrites((_file, _position, fd) => record('written', fd));
  const closeSync = fs.closeSync.bind(fs);
  vi.spyOn(fs, 'closeSync').mockImplementation((fd: number) => {
    record('closed', fd);
    closeSync(fd);
  });

  // Not awaited one by one: the insert runs, and closes the segment the switch ended, while the
  // switch's answer waits for that segment's flush.
  await sql`insert into probe (note) values ('before the switch')`.execute(db);
  await Promise.all([
    sql`select pg_switch_wal()`.execute(db),
    sql`insert into probe (note) values ('in the next segment')`.execute(db),
  ]);

  for (const flush of flushes) {
    if (!isWal(flush.path)) continue;
    events.push({ kind: 'flush started', path: flush.path, at: flush.startedAt });
    if (flush.doneAt !== undefined) events.push({ kind: 'flushed', path: flush.path, at: flush.doneAt });
  }
  events.sort((a, b) => a.at - b.at);
  const closes = events.filter((event) => event.kind === 'closed');
  expect(closes.length).toBeGreaterThan(0);
  for (const close of closes) {
    const before = events.filter((event) => event.path === close.path && event.at <= close.at);
    const lastWrite = before.filter((event) => event.kind === 'written').at(-1);
    if (!lastWrite) continue;
    // Some flush of this segment began after its last write and ended before it was closed.
    const started = before.filter((event) => event.kind === 'flush started' && event.at >= lastWrite.at);
    const covered = started.some((start) => before.some((event) => event.kind === 'flushed' && event.at >= start.at));
    expect(covered, `${close.path} closed with WAL not on disk`).toBe(true);
  }
});

it(
  'answers with an error, never hangs, when the disk fails while PostgreSQL installs a new WAL segment',
  opensAStore,
  async () => {
    const db = await openOnDisk(); // a store of its own: this one stops working
    await sql`insert into probe (note) values ('before the switch')`.execute(db);
    // The pg_wal directory is synced when a new segment is installed, inside PostgreSQL's WAL write.
    const fsyncSync = fs.fsyncSync.bind(fs);
    let injected = 0;
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      if (pathOfFd(fd).endsWith('/pg_wal')) {
        injected++;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      }
      fsyncSync(fd);
    });
    const answers = await Promise.allSettled([
      sql`select pg_switch_wal()`.execute(db),
      sql`insert into probe (note) values ('in the next segment')`.execute(db),
    ]);
    expect(injected).toBeGreaterThan(0);
    expect(answers.map((answer) => answer.status)).toContain('rejected');
    for (const answer of answers)
      if (answer.status === 'rejected') expect(String(answer.reason)).toMatch(/could not write to disk/);
    vi.restoreAllMocks();
    await expect(sql`select 1`.execute(db)).rejects.toThrow(/restart the gateway/);

    // Nor does anything more reach its other files, even as it closes (its shutdown checkpoint writes
    // pages and pg_control): the WAL they would rest on may not be on disk.
    const pagesWritten: string[] = [];
    watchWrites((file) => {
      if (!isWal(file)) pagesWritten.push(file);
    });
    await stores[stores.length - 1].storage.close().catch(() => {});
    expect(pagesWritten).toEqual([]);
  },
);

it(
  'flushes through one descriptor of its own per WAL segment in use, and keeps none once closed',
  opensAStore,
  async () => {
    await openOnDisk(); // a store of its own: it is closed at the end
    const { storage, dataDir } = stores.at(-1)!;
    const walDescriptors = () =>
      fs
        .readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return pathOfFd(Number(fd));
          } catch {
            return ''; // closed meanwhile (readdir's own descriptor)
          }
        })
        .filter((file) => file.startsWith(dataDir) && isWal(file));
    const opens: string[] = [];
    const open = fs.open.bind(fs) as (...args: unknown[]) => void;
    vi.spyOn(fs, 'open').mockImplementation(((file: string, ...rest: unknown[]) => {
      if (isWal(String(file))) opens.push(String(file));
      open(file, ...rest);
    }) as typeof fs.open);

    const flushes = watchBackgroundFlushes(0);

    // Twenty commits one after another in one segment: twenty flushes, and the segment opened once at
    // most (the table's creation may have opened it already).
    for (let i = 0; i < 20; i++) await sql`insert into probe (note) values (${`commit ${i}`})`.execute(storage.db);
    expect(flushes.filter((flush) => isWal(flush.path)).length).toBeGreaterThanOrEqual(20);
    expect(opens.length).toBeLessThanOrEqual(1);
    // Segment after segment: the descriptors of those PostgreSQL has closed are closed too.
    for (let i = 0; i < 5; i++) {
      await sql`select pg_switch_wal()`.execute(storage.db);
      await sql`insert into probe (note) values (${`segment ${i}`})`.execute(storage.db);
    }
    expect(new Set(opens).size).toBeGreaterThanOrEqual(5);
    expect(new Set(walDescriptors()).size).toBe(1);

    await storage.close();
    expect(walDescriptors()).toEqual([]);
  },
);

it(
  'flushes on the spot through the same descriptor as in the background, without opening the segment again',
  opensAStore,
  async () => {
    const db = await openOnDisk(); // its creation flushed, so its WAL segment has a descriptor of the flushes'
    await sql`insert into probe (note) values ('first')`.execute(db);
    // Background flushes take long here, so the checkpoint's page writes come while one is under way and
    // must flush that WAL on the spot first.
    watchBackgroundFlushes(1_000);
    const opened: string[] = [];
    const openSync = fs.openSync.bind(fs) as (...args: unknown[]) => number;
    vi.spyOn(fs, 'openSync').mockImplementation(((file: string, ...rest: unknown[]) => {
      if (isWal(String(file))) opened.push(String(file));
      return openSync(file, ...rest);
    }) as typeof fs.openSync);
    const flushedOnTheSpot: string[] = [];
    const fdatasyncSync = fs.fdatasyncSync.bind(fs);
    vi.spyOn(fs, 'fdatasyncSync').mockImplementation((fd: number) => {
      if (isWal(pathOfFd(fd))) flushedOnTheSpot.push(pathOfFd(fd));
      fdatasyncSync(fd);
    });

    await Promise.all([sql`insert into probe (note) values ('second')`.execute(db), sql`checkpoint`.execute(db)]);

    expect(flushedOnTheSpot.length).toBeGreaterThan(0);
    expect(opened).toEqual([]);
  },
);
