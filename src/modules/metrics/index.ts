/** Prometheus metrics: the registry every module's numbers end up in, and GET /metrics. */
export { createMetrics, type Metrics } from './registry.js';
export { metricsRoutes as routes } from './routes.js';
export type { MetricsContext } from './context.js';
