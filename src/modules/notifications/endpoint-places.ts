/**
 * How many sends each endpoint (a URL's origin) may have in flight on this instance: its places.
 *
 * An endpoint starts with `START` places. One that answers 2xx while more of its notifications are
 * due (the last claim that read it filled its free places) gains a place with each such answer, up
 * to `MOST`: a merchant whose payments come faster than four sends at a time carry them hears of
 * them at its receiver's pace, not four at a time (each answer adds one, so the width doubles per
 * round of answers). Any other outcome (an error status, a time-out, no connection) puts it back to
 * `START`, as does going idle: a receiver that struggles is not pressed, and one that never answers
 * holds `START` connections, no more. Sends in flight at a reset still count, and those that end
 * answered widen it again from `START`: a lone failure among many answers costs little. Additive
 * increase, reset on failure: the shape of TCP's slow start, kept per instance (each instance learns
 * an endpoint on its own).
 */
export const ENDPOINT_PLACES = { START: 4, MOST: 32 } as const;

/** What a claim needs: each endpoint's free places where they differ from `otherwise`. */
export interface FreePlaces {
  free: ReadonlyMap<string, number>;
  otherwise: number;
}

export function endpointPlaces() {
  const sending = new Map<string, number>();
  /**
   * Endpoints with more than START places. Put back to START, an endpoint may have more sends in flight
   * than places: none is free (freeAt ≤ 0) until enough of them end.
   */
  const wider = new Map<string, number>();
  let total = 0;

  const placesOf = (endpoint: string) => wider.get(endpoint) ?? ENDPOINT_PLACES.START;
  const freeAt = (endpoint: string) => placesOf(endpoint) - (sending.get(endpoint) ?? 0);

  return {
    /** Sends in flight on this instance. */
    inFlight: () => total,
    freeAt,
    freePlaces(): FreePlaces {
      const free = new Map<string, number>();
      for (const endpoint of new Set([...sending.keys(), ...wider.keys()])) free.set(endpoint, freeAt(endpoint));
      return { free, otherwise: ENDPOINT_PLACES.START };
    },
    taken(endpoint: string) {
      sending.set(endpoint, (sending.get(endpoint) ?? 0) + 1);
      total++;
    },
    /** A send ended: `answered` when the receiver took it (2xx), `more` when more are due there. */
    released(endpoint: string, answered: boolean, more: boolean) {
      const left = sending.get(endpoint)! - 1;
      if (left === 0) sending.delete(endpoint);
      else sending.set(endpoint, left);
      total--;
      if (answered && more) wider.set(endpoint, Math.min(placesOf(endpoint) + 1, ENDPOINT_PLACES.MOST));
      else if (!answered || left === 0) wider.delete(endpoint);
    },
  };
}
