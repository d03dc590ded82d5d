import { describe, expect, it } from 'vitest';
import { crashBackoff } from '../../src/cluster.js';

describe('replacing a worker that ended (WORKERS > 1)', () => {
  it('waits 1 s, doubling while workers keep ending, at most 60 s; 1 s again after 5 quiet minutes', () => {
    const delayAfterEnd = crashBackoff();
    let now = 0;
    const delays: number[] = [];
    for (let end = 0; end < 9; end++) {
      const delay = delayAfterEnd(now);
      delays.push(delay);
      now += delay + 500; // a worker that crashes half a second after it was started
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    expect(delayAfterEnd(now + 5 * 60_000 + 1)).toBe(1000);
  });
});
