import { expect, it } from 'vitest';
import { ENDPOINT_PLACES, endpointPlaces } from '../../src/modules/notifications/endpoint-places.js';

// How wide each endpoint's sends may be: the sweep's rule, on its own.
const A = 'https://a.example';
const B = 'https://b.example';
const { START, MOST } = ENDPOINT_PLACES;

/** Takes every free place of `endpoint`, then releases them all with one outcome. */
function round(places: ReturnType<typeof endpointPlaces>, endpoint: string, answered: boolean, more = true) {
  const n = places.freeAt(endpoint);
  for (let i = 0; i < n; i++) places.taken(endpoint);
  for (let i = 0; i < n; i++) places.released(endpoint, answered, more);
  return n;
}

it(`gives an endpoint ${START} places, one more for each answer while more is due, up to ${MOST}`, () => {
  const places = endpointPlaces();
  expect(places.freeAt(A)).toBe(START);
  expect(round(places, A, true)).toBe(START);
  expect(places.freeAt(A)).toBe(2 * START);
  const widths = [];
  for (let i = 0; i < 5; i++) widths.push(round(places, A, true));
  expect(widths).toEqual([8, 16, 32, 32, 32]);
  // The other endpoints keep the first width, and the claim is told only where it differs.
  expect(places.freeAt(B)).toBe(START);
  places.taken(A);
  expect(places.freePlaces()).toEqual({ free: new Map([[A, MOST - 1]]), otherwise: START });
  expect(places.inFlight()).toBe(1);
});

it(`puts an endpoint back to ${START} places when a send fails, and when it goes idle`, () => {
  const places = endpointPlaces();
  round(places, A, true);
  round(places, A, true);
  expect(places.freeAt(A)).toBe(16);
  // 10 sends in flight when one fails: none is free while 9 are still out.
  for (let i = 0; i < 10; i++) places.taken(A);
  places.released(A, false, true);
  expect(places.freeAt(A)).toBe(START - 9);
  // Those that end answered widen it again from START, one each; the next failure narrows it again.
  for (let i = 0; i < 6; i++) places.released(A, true, true);
  expect(places.freeAt(A)).toBe(START + 6 - 3);
  places.released(A, false, true);
  expect(places.freeAt(A)).toBe(START - 2);
  places.released(A, false, true);

  round(places, B, true);
  expect(places.freeAt(B)).toBe(8);
  places.taken(B);
  places.released(B, true, false);
  expect(places.freeAt(B)).toBe(START);
  expect(places.inFlight()).toBe(1);
});

it('does not widen an endpoint with nothing more due', () => {
  const places = endpointPlaces();
  places.taken(A);
  places.taken(A);
  places.released(A, true, false);
  expect(places.freeAt(A)).toBe(START - 1);
});
