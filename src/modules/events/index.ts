/** The events module: the event catalog and the one outbox insert every emitting module uses. */
export type { EventCatalog, EventType } from './catalog.js';
export { insertEvent, type EventRow } from './outbox.js';
