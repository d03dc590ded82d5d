/** The outbox belongs to the events module: every emitting module writes it through withEvent. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export interface OutboxEventsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  type: string;
  object_id: number;
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

/** An outbox event not yet handed to delivery (its webhook_deliveries not yet written). */
export interface OutboxQueueTable {
  event_id: number;
  merchant_id: number;
}

declare module '../../storage/schema.js' {
  interface Database {
    outbox_events: OutboxEventsTable;
    outbox_queue: OutboxQueueTable;
  }
}
