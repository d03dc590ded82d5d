import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Storage } from '../../storage/db.js';
import type { KeyCache } from '../api-keys/index.js';
import type { Metrics } from './registry.js';

/** What the metrics module needs: the registry of this instance and what it samples (pool, key cache). */
export interface MetricsContext extends DbContext {
  config: Config;
  storage: Storage;
  /** The exact API-key cache of this instance (modules/api-keys). */
  keyCache: KeyCache;
  /** Prometheus metrics of this instance, served at GET /metrics. */
  metrics: Metrics;
}
