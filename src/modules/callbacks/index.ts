/** The callbacks module: signed provider callbacks, stored once and processed by the handlers other modules contribute. */
export { callbackRoutes as routes } from './routes.js';
export { callbackJobs as jobs } from './process-callback-event.js';
export { CallbackHandlers, type CallbackEvent, type CallbackHandler, type CallbackHandlerMap } from './dispatch.js';
export { callbacksOfTransactions } from './callbacks-of-transactions.js';
export { ReceivedCallback } from './schemas.js';
export type { CallbackEventSource, CallbackEventsTable } from './tables.js';
export type { CallbacksContext } from './context.js';
