import { describe, expect, it } from 'vitest';
import { EVENT_SAMPLES } from '../../src/modules/notifications/event-samples.js';
import { EVENT_TYPES } from '../../src/modules/notifications/event-types.js';
import { testEventEnvelope } from '../../src/modules/notifications/send-test-event.js';
import { validateEvent } from './event-schemas.js';

describe('test event samples', () => {
  const at = new Date('2026-03-01T12:00:00Z');

  it('has a sample of every type the gateway emits, each valid against its schema, in either mode', () => {
    expect(Object.keys(EVENT_SAMPLES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES)
      for (const livemode of [false, true]) {
        const event = testEventEnvelope(type, at, livemode);
        expect(validateEvent(event), `${type} livemode=${livemode}`).toEqual([]);
        expect(event).toMatchObject({ type, livemode, created: at.toISOString(), test: true });
      }
  });

  it('names no real object: every id in a sample is 0', () => {
    for (const type of EVENT_TYPES) {
      const object = testEventEnvelope(type, at, false).data.object;
      for (const [key, value] of Object.entries(object))
        if (/Id$/.test(key) && typeof value === 'number') expect(value, `${type} ${key}`).toBe(0);
    }
  });

  it('catches a sample that breaks its schema (the check is not vacuous)', () => {
    const event = testEventEnvelope('payment.succeeded', at, false);
    const broken = { ...event, data: { object: { ...event.data.object, status: 'paid', amount: '10' } } };
    const problems = validateEvent(broken);
    expect(problems.some((p) => p.startsWith('data.object/status'))).toBe(true);
    expect(problems.some((p) => p.startsWith('data.object/amount'))).toBe(true);
    expect(validateEvent({ ...event, test: undefined, id: 'evt_1' })).toHaveLength(2);
  });
});
