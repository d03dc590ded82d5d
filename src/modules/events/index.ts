/** The events module: the event catalog and the one outbox write every emitting module uses. */
export type { EventCatalog, EventType } from './catalog.js';
export { recordEvent, withEvent, type EventRow } from './outbox.js';
export type { OutboxEventsTable, OutboxQueueTable } from './tables.js';
