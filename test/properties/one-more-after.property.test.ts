import fc from 'fast-check';
import { expect, it } from 'vitest';
import { OneMoreAfter } from '../../src/lib/one-more-after.js';

// "One at a time, one more after" (src/lib/one-more-after.ts), which the delivery sweep's claims, the
// job loop's passes and group commit's sends all run on: against a model, over any order of asking,
// runs ending and closing. Never more than `limit` runs at once; a run asked for while that many are
// under way starts exactly once, when one ends, with the last asker's task; `join` shares without
// asking for more; `close` drops what was asked for and waits for what is under way.

const flush = () => new Promise((resolve) => setImmediate(resolve));

type Step = { kind: 'run' | 'join' | 'end' | 'fail' | 'close' };

const steps = fc.array(
  fc.constantFrom<Step>(
    { kind: 'run' },
    { kind: 'run' },
    { kind: 'join' },
    { kind: 'end' },
    { kind: 'end' },
    { kind: 'fail' },
    { kind: 'close' },
  ),
  { maxLength: 40 },
);

it('runs at most limit at once, and one more after for whatever was asked meanwhile', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }), steps, async (limit, plan) => {
      const followUpErrors: unknown[] = [];
      const runner = new OneMoreAfter<number>({ limit, onError: (error) => followUpErrors.push(error) });
      /** The runs under way, oldest first: the asker whose task it is, and how to end it. */
      const underWay: Array<{ id: number; end: (value: number) => void; fail: (error: Error) => void }> = [];
      const started: number[] = [];
      let asks = 0;
      const task = (id: number) => () =>
        new Promise<number>((resolve, reject) => {
          started.push(id);
          underWay.push({ id, end: resolve, fail: reject });
        });

      // The model.
      let running = 0;
      let wanted: number | undefined;
      let last: number | undefined;
      const expectedStarts: number[] = [];
      const answers: Array<{ promise: Promise<number>; shares: number | undefined }> = [];
      let closing: Promise<void> | undefined;
      let isClosed = false;

      for (const step of plan) {
        if (step.kind === 'run' || step.kind === 'join') {
          const id = ++asks;
          const promise = step.kind === 'run' ? runner.run(task(id)) : runner.join(task(id));
          if (running < limit) {
            running++;
            last = id;
            expectedStarts.push(id);
          } else if (step.kind === 'run') wanted = id;
          answers.push({ promise: promise.catch(() => -1), shares: last });
          closing = undefined;
          isClosed = false;
        } else if (step.kind === 'close') {
          closing = runner.close();
          isClosed = true;
          wanted = undefined;
        } else {
          const oldest = underWay.shift();
          if (oldest === undefined) continue;
          if (step.kind === 'end') oldest.end(oldest.id);
          else oldest.fail(new Error(`run ${oldest.id} failed`));
          await flush();
          running--;
          if (wanted !== undefined) {
            running++;
            last = wanted;
            expectedStarts.push(wanted);
            wanted = undefined;
          }
        }
        expect(started).toEqual(expectedStarts);
        expect(underWay.length).toBe(running);
        expect(running).toBeLessThanOrEqual(limit);
        expect(runner.busy).toBe(running > 0);
        expect(runner.closed).toBe(isClosed);
      }

      // The close last asked for resolves only once the runs under way at it have ended.
      let closed = false;
      void closing?.then(() => (closed = true));
      await flush();
      if (closing) expect(closed).toBe(running === 0);
      while (underWay.length > 0) {
        underWay.shift()!.end(0);
        await flush();
      }
      await runner.idle();
      if (closing) {
        await closing;
        expect(started).toEqual(expectedStarts);
      }
      // Each asker got the run it started or shared (the last one started when it asked).
      for (const { promise, shares } of answers) {
        const value = await promise;
        if (value !== -1 && value !== 0) expect(value).toBe(shares);
      }
      expect(followUpErrors.every((error) => error instanceof Error)).toBe(true);
    }),
    { numRuns: 200 },
  );
});

it('gives a task that asks for more in its synchronous start one more run after it, not one beside it', async () => {
  const runner = new OneMoreAfter<void>({ onError: () => {} });
  const queue = [1, 2, 3, 4, 5];
  const taken: number[][] = [];
  let concurrent = 0;
  let most = 0;
  const takeTwo = async () => {
    taken.push(queue.splice(0, 2));
    if (queue.length > 0) void runner.run(takeTwo);
    most = Math.max(most, ++concurrent);
    await flush();
    concurrent--;
  };
  void runner.run(takeTwo);
  await flush();
  await runner.idle();
  expect(taken).toEqual([[1, 2], [3, 4], [5]]);
  expect(most).toBe(1);
});

it('reports a failed follow-up, which nobody awaits, to onError', async () => {
  const errors: unknown[] = [];
  const runner = new OneMoreAfter<number>({ onError: (error) => errors.push(error) });
  let end!: () => void;
  const first = runner.run(() => new Promise<number>((resolve) => (end = () => resolve(1))));
  void runner.run(() => Promise.reject(new Error('claim failed')));
  end();
  expect(await first).toBe(1);
  await runner.idle();
  await flush();
  expect(errors).toEqual([new Error('claim failed')]);
});
