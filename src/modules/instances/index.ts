export { startHeartbeat, isLive, type Heartbeat } from './heartbeat.js';
