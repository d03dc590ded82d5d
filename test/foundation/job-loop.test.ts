import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DRAIN_AT_ONCE, DRAIN_PAUSE_MS, JobRunner, TICK_MS } from '../../src/jobs/queue.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';

// The background loop runs each sweep as often as it says (each run is a statement, on an idle gateway
// too), pauses briefly between passes that find a little work and drains a backlog without pausing; a
// call to runDue, what tests and operators use after moving the clock, runs every sweep at once.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ databaseUrl: await freshDatabaseUrl() });
});
afterAll(async () => storage.close());

const newRunner = () => new JobRunner(storage.db, new ManualClock(new Date()), pino({ level: 'silent' }));

function runnerWithSweeps() {
  const runs = { everyBeat: 0, rare: 0, busy: 0 };
  let backlog = 3;
  const runner = newRunner();
  runner.use({}, [
    { everyMs: 0, run: async () => (runs.everyBeat++, 0) },
    { everyMs: 60_000, run: async () => (runs.rare++, 0) },
    // Finds a row on each of its first three runs: the loop drains it rather than waiting a minute (and
    // runs the every-beat sweep with it: the first beat alone makes four passes).
    { everyMs: 60_000, run: async () => (runs.busy++, backlog > 0 ? (backlog--, 1) : 0) },
  ]);
  return { runner, runs };
}

it('runs a sweep on every beat, or once per its interval, and drains one that found work', async () => {
  const { runner, runs } = runnerWithSweeps();
  runner.start();
  try {
    await expect.poll(() => runs.everyBeat, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(6);
  } finally {
    await runner.stop();
  }
  expect(runs.rare).toBe(1);
  expect(runs.busy).toBe(4);
});

/** The loop with one sweep that finds `found(run)` rows on its run number `run`; the times of its runs. */
async function loopUntil(found: (run: number) => number, runs: number): Promise<number[]> {
  const at: number[] = [];
  const runner = newRunner();
  runner.use({}, [{ everyMs: 0, run: async () => found(at.push(performance.now())) }]);
  runner.start();
  try {
    await expect.poll(() => at.length, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(runs);
  } finally {
    await runner.stop();
  }
  return at.slice(1, runs).map((time, i) => time - at[i]);
}

it('after a pass that found a little work, waits a moment before the next: a stream is carried in batches', async () => {
  // Before, a stream of events (one or two per pass) kept the loop passing back to back, each pass
  // some seven statements.
  const gaps = await loopUntil(() => 1, 8);
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(DRAIN_PAUSE_MS - 10);
});

it('drains a backlog pass after pass without that pause', async () => {
  const gaps = await loopUntil((run) => (run <= 30 ? DRAIN_AT_ONCE : 0), 30);
  // Unpaused, a pass follows the last as soon as it ends; a slow moment may stretch a few gaps.
  expect(gaps.filter((gap) => gap < DRAIN_PAUSE_MS - 10).length, JSON.stringify(gaps)).toBeGreaterThanOrEqual(20);
});

it('waits a whole beat after a failed pass, even one that followed a backlog', async () => {
  const gaps = await loopUntil((run) => {
    if (run === 2) throw new Error('the store is away');
    return run === 1 ? DRAIN_AT_ONCE : 0;
  }, 3);
  expect(gaps[1]).toBeGreaterThanOrEqual(TICK_MS - 10);
});

it('runs every sweep on each runDue, whatever their intervals', async () => {
  const { runner, runs } = runnerWithSweeps();
  await runner.runDue();
  await runner.runDue();
  expect(runs).toEqual({ everyBeat: 2, rare: 2, busy: 2 });
});

it('passes no more after stop(), even when the pass under way found work', async () => {
  // Before, a sweep that kept finding work kept the loop draining after stop, against a closing store.
  let runs = 0;
  let entered!: () => void;
  const inPass = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const runner = newRunner();
  runner.use({}, [{ everyMs: 0, run: async () => (runs++, entered(), await released, 1) }]);
  runner.start();
  await inPass;
  const stopping = runner.stop();
  release();
  await stopping;
  const atStop = runs;
  await new Promise((resolve) => setTimeout(resolve, 1200));
  expect(runs).toBe(atStop);
});
