import fs from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Durable commits for the embedded store on disk.
 *
 * PGlite starts PostgreSQL with fsync off, and its WebAssembly file system turns every fsync into
 * nothing: a commit is answered once its WAL is in the operating system's cache, which survives a
 * crash of the gateway but not of the machine. These parameters turn fsync on and make PostgreSQL
 * use plain fsync() for the WAL (the one call that reaches the file system's `fsync` operation;
 * fdatasync() is dropped before it), and `installWalSync` gives that operation a real meaning.
 *
 * A synchronous fdatasync per commit would stall the event loop (~0.5 ms each) and, PGlite being one
 * connection, every request with it. So a WAL fsync only starts a flush in the background, one
 * fdatasync for every commit made meanwhile (group commit), and the driver holds each answer back
 * until `settled()` says its commit reached the disk. PostgreSQL's rule that the WAL reaches the disk
 * before the pages it describes holds, a little more strictly: before a page of another file is
 * written over or another file synced, and before a WAL segment is closed, all WAL written so far is
 * flushed on the spot.
 */
export const WAL_SYNC_START_PARAMS = ['-c', 'fsync=on', '-c', 'wal_sync_method=fsync'];

export interface WalSync {
  /** Resolves once every commit made so far is on disk; rejects if a flush failed. */
  settled(): Promise<void>;
  /** Set once a flush failed: nothing acknowledged after that could be trusted to be durable. */
  failure(): Error | undefined;
  /** Closes the flushes' own descriptors of WAL segments; once the store is closed and settled. */
  close(): void;
}

/** What PGlite exposes of its Emscripten file system (not part of its typed API). */
interface EmscriptenStream {
  nfd?: number;
  node: unknown;
}
interface StreamOps {
  write(stream: EmscriptenStream, buffer: Uint8Array, offset: number, length: number, position: number): number;
  close(stream: EmscriptenStream): void;
  fsync?(stream: EmscriptenStream): number;
}
interface NodeFsType {
  realPath(node: unknown): string;
  stream_ops: StreamOps;
}
interface EmscriptenFs {
  lookupPath(path: string): { node: { mount: { type: NodeFsType } } };
}

const isWal = (path: string) => path.includes('/pg_wal/');

/**
 * One file or directory to disk, on this thread. A WAL segment is written over in place (its size
 * never changes), so its data is enough; anything else gets its metadata too (a table's new length,
 * a directory's new entries).
 */
function syncToDisk(path: string, what: 'data' | 'all'): void {
  const fd = fs.openSync(path, 'r');
  try {
    if (what === 'data') fs.fdatasyncSync(fd);
    else fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A store PGlite created (with fsync off, as it does everything) to disk: each file, then its directory. */
export function syncStoreFiles(target: string): void {
  if (fs.statSync(target).isDirectory()) {
    for (const entry of fs.readdirSync(target)) syncStoreFiles(join(target, entry));
  }
  syncToDisk(target, 'all');
}

/** Node's callback file calls, which run on libuv's thread pool, as promises. */
const callback = <T = void>(call: (done: (error: Error | null, value?: T) => void) => void) =>
  new Promise<T>((resolve, reject) => call((error, value) => (error ? reject(error) : resolve(value as T))));

export function installWalSync(pglite: PGlite, dataPath = '/pglite/data'): WalSync {
  const FS = (pglite as unknown as { mod: { FS: EmscriptenFs } }).mod.FS;
  const nodefs = FS.lookupPath(dataPath).node.mount.type;
  const ops = nodefs.stream_ops;
  const pathOf = (stream: EmscriptenStream) => nodefs.realPath(stream.node);

  /** WAL files written to since their last flush began, and those of the flush under way. */
  let written = new Set<string>();
  let inFlight = new Set<string>();
  /** The flush in the background, and the one to run after it for requests made meanwhile. */
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  let failed: Error | undefined;
  /**
   * The background flushes' own descriptors of the WAL segments, opened once a segment: a flush is then
   * one call on libuv's thread pool (fdatasync) instead of three (open, fdatasync, close), each a hand-off
   * to a pool thread and back that a one-at-a-time payment waits for twice; a flush on the spot uses them
   * too. A segment's descriptor is retired when PostgreSQL closes the segment (before it recycles or
   * removes it), and closed once no flush can be using it.
   */
  const descriptors = new Map<string, number>();
  const retired: number[] = [];
  // Closing a descriptor opened only to read costs no flush, so it is done on the spot; it runs inside
  // PostgreSQL's own file calls (ops.close below), where nothing may throw, and its failure loses nothing.
  const closeRetired = () =>
    retired.splice(0).forEach((fd) => {
      try {
        fs.closeSync(fd);
      } catch {
        // the descriptor was only ever read through
      }
    });

  const fail = (error: unknown): Error =>
    (failed ??= new Error(
      `the embedded store could not write to disk (${(error as Error).message}); restart the gateway`,
    ));
  /**
   * A flush on the spot runs inside PostgreSQL's own file calls, some of them in its critical sections
   * (installing a new WAL segment), where an exception would leave it spinning at the next commit. So a
   * failure is recorded, not thrown: every answer waits for `settled()`, which then rejects, and every
   * statement after it is refused (pglite-dialect.ts).
   */
  const onDisk = (work: () => void) => {
    if (failed) return;
    try {
      work();
    } catch (error) {
      fail(error);
    }
  };

  /** Flushes the WAL written so far now, on this thread: before anything may depend on it. */
  const flushNow = () => {
    if (written.size === 0 && inFlight.size === 0) return;
    const paths = new Set([...inFlight, ...written]);
    written = new Set();
    inFlight = new Set(); // on disk once this returns, whenever the background flush ends
    onDisk(() =>
      paths.forEach((path) => {
        const fd = descriptors.get(path);
        if (fd === undefined) syncToDisk(path, 'data');
        else fs.fdatasyncSync(fd);
      }),
    );
  };

  /** A segment's descriptor for the flush of `paths`; none if the segment is gone or the flush was overtaken. */
  const openSegment = async (path: string, paths: Set<string>): Promise<number | undefined> => {
    // Gone means recycled or removed, which PostgreSQL does only to a segment it has closed, and
    // closing one flushes it first (below).
    const fd = await callback<number>((done) => fs.open(path, 'r', done)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (fd === undefined) return undefined;
    // A flush on the spot synced everything while the file was opening, perhaps because PostgreSQL
    // closed this very segment: no descriptor is kept for a segment that may be closed.
    if (inFlight !== paths) {
      retired.push(fd); // closed as this flush ends
      return undefined;
    }
    descriptors.set(path, fd);
    return fd;
  };

  const flushInBackground = async (): Promise<void> => {
    const paths = written;
    inFlight = paths;
    written = new Set();
    try {
      for (const path of paths) {
        if (inFlight !== paths) break; // a flush on the spot (flushNow) has synced them all since
        const fd = descriptors.get(path) ?? (await openSegment(path, paths));
        if (fd !== undefined) await callback((done) => fs.fdatasync(fd, done));
      }
    } finally {
      if (inFlight === paths) inFlight = new Set();
      closeRetired();
    }
  };

  /** One flush at a time; requests made while one runs share the next. */
  const schedule = (): Promise<void> => {
    if (!running) {
      running = flushInBackground()
        .catch((error: unknown) => {
          throw fail(error);
        })
        .finally(() => (running = undefined));
      return running;
    }
    next ??= running
      .catch(() => {})
      .then(() => {
        next = undefined;
        return schedule();
      });
    return next;
  };

  ops.fsync = (stream) => {
    const path = pathOf(stream);
    if (isWal(path)) {
      written.add(path);
      schedule().catch(() => {}); // settled() reports a failure to whoever waits
    } else {
      flushNow();
      onDisk(() => syncToDisk(path, 'all'));
    }
    return 0;
  };

  const write = ops.write.bind(ops);
  ops.write = (stream, buffer, offset, length, position) => {
    const path = pathOf(stream);
    if (!isWal(path)) {
      // Most such writes add new, empty pages at the end of a growing table, which no WAL describes
      // yet; a page written over is one PostgreSQL changed, and its WAL goes first.
      if ((written.size > 0 || inFlight.size > 0) && position < fs.fstatSync(stream.nfd!).size) flushNow();
      // Once a flush failed, nothing more reaches the store's other files (pages, pg_control): the WAL
      // they would rest on may not be on disk. The store refuses every statement by then.
      if (failed) return length;
      return write(stream, buffer, offset, length, position);
    }
    const bytes = write(stream, buffer, offset, length, position);
    written.add(path);
    return bytes;
  };

  const close = ops.close.bind(ops);
  ops.close = (stream) => {
    const path = pathOf(stream);
    // Also keeps a file PostgreSQL renames once closed (a new segment's temporary file) out of the
    // next flush on the spot, which would not find it.
    if (written.has(path) || inFlight.has(path)) flushNow();
    const fd = descriptors.get(path);
    if (fd !== undefined) {
      descriptors.delete(path);
      retired.push(fd);
      if (!running) closeRetired();
    }
    close(stream);
  };

  const failure = () => failed;
  return {
    settled: async () => {
      // `running` finishes before `next` starts, so the latest of them covers every commit so far.
      if (!failure()) await (next ?? running);
      const error = failure();
      if (error) throw error;
    },
    failure,
    close: () => {
      retired.push(...descriptors.values());
      descriptors.clear();
      closeRetired();
    },
  };
}
