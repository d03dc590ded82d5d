import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';

/** What the panel-sessions module needs: the store, the cookie's settings and the secret its tokens are signed with. */
export interface PanelSessionsContext extends DbContext {
  config: Config;
  secrets: Secrets;
}
