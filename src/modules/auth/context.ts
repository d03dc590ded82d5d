import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';
import type { AccessTokens } from './jwt.js';

/** What the auth module needs: the access tokens, the secret that signs account links, the address they point to. */
export interface AuthContext extends DbContext {
  config: Config;
  secrets: Secrets;
  tokens: AccessTokens;
}
