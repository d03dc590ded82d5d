export { startHeartbeat, isLive, type Heartbeat } from './heartbeat.js';
export * as keyCacheBarriers from './key-cache-barriers.js';
