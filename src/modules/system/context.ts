import type { Clock } from '../../lib/clock.js';
import type { Storage } from '../../storage/db.js';

/** What the probes need: the storage whose readiness they report. */
export interface SystemContext {
  clock: Clock;
  storage: Storage;
}
