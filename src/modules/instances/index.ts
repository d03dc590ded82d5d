export { startHeartbeat, isLive, INSTANCE_LEASE_SECONDS, type Heartbeat } from './heartbeat.js';
export * as keyCacheBarriers from './key-cache-barriers.js';
export type { GatewayInstancesTable } from './tables.js';
