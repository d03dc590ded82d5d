/** The checkout sessions module: short-lived tokens that let a payer's browser pay one payment request. */
export { checkoutSessionRoutes as routes } from './routes.js';
export { checkoutTokenVerifier } from './verifier.js';
export { exchangeLegacyApiKey } from './exchange-legacy-api-key.js';
export type { CheckoutSessionsTable } from './tables.js';
