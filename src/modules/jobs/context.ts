import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';

/** What the jobs module needs: the store and how long completed jobs are kept. */
export interface JobsContext extends DbContext {
  config: Config;
}
