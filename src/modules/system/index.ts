/** The system module: health and identity endpoints. */
export { systemRoutes as routes } from './routes.js';
export type { SystemContext } from './context.js';
