/** The customers module: the merchant's customer records. */
export { customerRoutes as routes } from './routes.js';

// What other modules (and tests seeding state) may call.
export { createCustomer } from './create-customer.js';
export type { CustomersTable } from './tables.js';
