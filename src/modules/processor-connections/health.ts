/**
 * How a connection is doing, as the answers show it: "ok", "degraded" (failures seen, still called) or
 * "open" (its circuit is open: calls skip it). The circuit breaker of the processor calls
 * (processors/circuit-breaker.ts) is the source, per gateway instance.
 */
export type ConnectionHealth = 'ok' | 'degraded' | 'open';

export interface ConnectionHealthSource {
  healthOf(connectionId: string): ConnectionHealth;
}
