/** The customers module: the merchant's customer records. */
export { customerRoutes as routes } from './routes.js';
