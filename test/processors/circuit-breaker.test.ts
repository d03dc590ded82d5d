import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../src/processors/circuit-breaker.js';

/** One connection's circuit on a clock the test moves. */
function circuit() {
  let now = 0;
  const breaker = createCircuitBreaker({ failures: 3, coolDownMs: 1000, now: () => now });
  return { breaker, advance: (ms: number) => (now += ms) };
}

describe('a connection’s circuit', () => {
  it('stays closed through answers and fewer failures in a row than the limit', () => {
    const { breaker } = circuit();
    breaker.record('pc_1', false);
    breaker.record('pc_1', false);
    expect(breaker.healthOf('pc_1')).toBe('degraded');
    breaker.record('pc_1', true);
    breaker.record('pc_1', false);
    breaker.record('pc_1', false);
    expect(breaker.allow('pc_1')).toBe(true);
    expect(breaker.stateOf('pc_1')).toBe('closed');
  });

  it('opens at the limit, lets one probe through after the cool-down, and closes on its answer', () => {
    const { breaker, advance } = circuit();
    for (let i = 0; i < 3; i++) breaker.record('pc_1', false);
    expect(breaker.allow('pc_1')).toBe(false);
    expect(breaker.healthOf('pc_1')).toBe('open');
    advance(999);
    expect(breaker.allow('pc_1')).toBe(false);
    advance(1);
    expect(breaker.allow('pc_1')).toBe(true);
    // The probe is out: nobody else calls until it reports.
    expect(breaker.allow('pc_1')).toBe(false);
    breaker.record('pc_1', true);
    expect(breaker.stateOf('pc_1')).toBe('closed');
    expect(breaker.healthOf('pc_1')).toBe('ok');
  });

  it('opens again for a whole cool-down when the probe fails', () => {
    const { breaker, advance } = circuit();
    for (let i = 0; i < 3; i++) breaker.record('pc_1', false);
    advance(1000);
    expect(breaker.allow('pc_1')).toBe(true);
    breaker.record('pc_1', false);
    expect(breaker.stateOf('pc_1')).toBe('open');
    advance(999);
    expect(breaker.allow('pc_1')).toBe(false);
  });

  it('gives way to another probe when one never reports, rather than staying shut', () => {
    const { breaker, advance } = circuit();
    for (let i = 0; i < 3; i++) breaker.record('pc_1', false);
    advance(1000);
    expect(breaker.allow('pc_1')).toBe(true);
    advance(999);
    expect(breaker.allow('pc_1')).toBe(false);
    advance(1);
    expect(breaker.allow('pc_1')).toBe(true);
  });

  it('keeps each connection apart', () => {
    const { breaker } = circuit();
    for (let i = 0; i < 3; i++) breaker.record('pc_1', false);
    expect(breaker.allow('pc_2')).toBe(true);
    expect(breaker.states()).toEqual([{ connectionId: 'pc_1', state: 'open' }]);
  });
});
