/**
 * The auth module: sign-in (the lock-out rules), access tokens, and passwords: change, reset by an e-mailed
 * link, and the sign-in link of a guarded account.
 */
import type { DbContext } from '../../storage/db-context.js';
import type { Sweep } from '../../jobs/queue.js';
import { forgetStaleFailures } from './lock-out.js';

export { authRoutes as routes } from './routes.js';
export { createAccessTokens, type AccessTokens } from './jwt.js';
export { checkCredentials, type SignedInUser } from './login.js';
export { signInByLink } from './sign-in-by-link.js';
export { accountLinkMail } from './account-links.js';
export type { AccountLinkKind, AccountLinksTable, LoginFailuresTable, SignInGuardsTable } from './tables.js';

/** Failed sign-ins no one repeated for a day are forgotten. */
export const sweeps = (ctx: DbContext): Sweep[] => [{ everyMs: 10 * 60_000, run: () => forgetStaleFailures(ctx) }];
export type { AuthContext } from './context.js';
