import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';

/** What the team module needs: the store, the secret invitation links are signed with, the panel's address. */
export interface TeamContext extends DbContext {
  config: Config;
  secrets: Secrets;
}
