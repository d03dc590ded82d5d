/** How a connection's circuit stands: closed (called), open (skipped), half-open (one probe call in flight). */
export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitSettings {
  /** Unavailable answers in a row that open the circuit. */
  failures: number;
  /** How long an open circuit skips its connection before one call probes it. */
  coolDownMs: number;
  now?: () => number;
}

interface Circuit {
  failuresInARow: number;
  /** Set while open: until when calls skip the connection. */
  openUntil: number | null;
  /**
   * While a probe call is out: until when no other call probes. A probe whose result never comes (its
   * caller failed before calling) gives way to the next one after a cool-down, rather than forever.
   */
  probeUntil: number | null;
}

/**
 * One circuit per connection to a real processor, in this instance's memory: after `failures` unavailable
 * answers in a row (refused before anything was created, or no answer in time) the connection is
 * skipped for `coolDownMs`; then one call probes it: an answer closes the circuit, another failure
 * opens it again. Each gateway instance keeps its own circuits: an instance learns a processor is
 * down from its own calls, within `failures` of them.
 */
export function createCircuitBreaker(settings: CircuitSettings) {
  const now = settings.now ?? Date.now;
  const circuits = new Map<string, Circuit>();
  const circuitOf = (id: string): Circuit => {
    let circuit = circuits.get(id);
    if (!circuit) circuits.set(id, (circuit = { failuresInARow: 0, openUntil: null, probeUntil: null }));
    return circuit;
  };

  const stateOf = (circuit: Circuit | undefined): CircuitState => {
    if (!circuit || circuit.openUntil === null) return 'closed';
    return now() >= circuit.openUntil ? 'half_open' : 'open';
  };

  return {
    /** Whether a call may go to the connection now; in half-open, only the first caller probes. */
    allow(connectionId: string): boolean {
      const circuit = circuits.get(connectionId);
      const state = stateOf(circuit);
      if (state === 'closed') return true;
      if (state === 'open' || (circuit!.probeUntil !== null && now() < circuit!.probeUntil)) return false;
      circuit!.probeUntil = now() + settings.coolDownMs;
      return true;
    },

    /** The call's result: `answered` for any answer (approved, declined, challenge), false when unavailable. */
    record(connectionId: string, answered: boolean): void {
      const circuit = circuitOf(connectionId);
      circuit.probeUntil = null;
      if (answered) {
        circuit.failuresInARow = 0;
        circuit.openUntil = null;
        return;
      }
      circuit.failuresInARow += 1;
      if (circuit.openUntil !== null || circuit.failuresInARow >= settings.failures) {
        circuit.openUntil = now() + settings.coolDownMs;
      }
    },

    stateOf: (connectionId: string): CircuitState => stateOf(circuits.get(connectionId)),

    /** As the API shows a connection: `open` while skipped, `degraded` after recent failures, else `ok`. */
    healthOf(connectionId: string): 'ok' | 'degraded' | 'open' {
      const circuit = circuits.get(connectionId);
      const state = stateOf(circuit);
      if (state === 'open') return 'open';
      return state === 'half_open' || (circuit?.failuresInARow ?? 0) > 0 ? 'degraded' : 'ok';
    },

    /** Every circuit this instance has seen, for /metrics. */
    states(): Array<{ connectionId: string; state: CircuitState }> {
      return [...circuits.keys()].map((connectionId) => ({ connectionId, state: stateOf(circuits.get(connectionId)) }));
    },
  };
}

export type CircuitBreaker = ReturnType<typeof createCircuitBreaker>;
