import { expect, it } from 'vitest';
import { idleCollector } from '../../src/lib/idle-gc.js';

// When an idle gateway gives back the garbage a burst of work left (src/lib/idle-gc.ts).
const options = { everyMs: 1000, idleShare: 0.05, quietSamples: 2 };
const run = (samples: number[]) => {
  const decide = idleCollector(options);
  return samples.map((share) => decide(share));
};

it('collects once after work, when it has been quiet for the samples asked', () => {
  expect(run([0.9, 0.8, 0.01, 0.02, 0.01, 0.0])).toEqual([false, false, false, true, false, false]);
});

it('collects once after the start, then not again until there has been work', () => {
  expect(run([0, 0.01, 0, 0, 0.02])).toEqual([false, true, false, false, false]);
});

it('never collects while work goes on', () => {
  expect(run([0.5, 0.04, 0.6, 0.03, 0.7])).toEqual([false, false, false, false, false]);
});

it('collects again after the next spell of work', () => {
  expect(run([0.9, 0, 0, 0.3, 0.01, 0.01])).toEqual([false, false, true, false, false, true]);
});
