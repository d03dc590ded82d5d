/**
 * The processor-connections module: a merchant's connections to processors (Stripe, Adyen, the sandbox)
 * per mode, the payment slots each serves and in which priority, credentials encrypted and write-only.
 */
export { processorConnectionRoutes as routes } from './routes.js';

// What the payment routing and the processors' webhook receivers call.
export { connectionsFor, connectionById, type UsableConnection } from './connections-for.js';
export { storedAttemptJournal } from './attempt-journal.js';
export type { ConnectionHealth, ConnectionHealthSource } from './health.js';
export type { CredentialsOf, ProcessorCredentials } from './credentials.js';
export type { ProcessorConnectionsContext } from './context.js';
export type { ProcessorConnectionsTable, ProcessorKind, ConnectionSlot } from './tables.js';
