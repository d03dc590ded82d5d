/** The auth module: control-panel sign-in and access tokens. */
export { authRoutes as routes } from './routes.js';
export { createAccessTokens, type AccessTokens } from './jwt.js';
export { checkCredentials } from './login.js';
