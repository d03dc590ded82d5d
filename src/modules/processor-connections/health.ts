/**
 * How a connection is doing, as the answers show it: "ok", "degraded" (failures seen, still called) or
 * "open" (its circuit is open: calls skip it). The circuit breaker of the processor calls will feed this
 * through `ConnectionHealthSource`; until it exists every connection is "ok" (`everyConnectionOk`).
 */
export type ConnectionHealth = 'ok' | 'degraded' | 'open';

export interface ConnectionHealthSource {
  healthOf(connectionId: string): ConnectionHealth;
}

export const everyConnectionOk: ConnectionHealthSource = { healthOf: () => 'ok' };
