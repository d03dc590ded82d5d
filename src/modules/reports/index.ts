/** The reports module: the merchant dashboard's aggregates over payments. */
export { reportRoutes as routes } from './routes.js';
export { getDashboard } from './get-dashboard.js';
