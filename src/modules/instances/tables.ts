/** The running gateway instances belong to the instances module (heartbeat, key-cache barriers). */
import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export interface GatewayInstancesTable {
  id: string;
  started_at: Timestamp;
  seen_at: Timestamp;
  /** The highest API-key cache barrier this instance has seen (migration 0012). */
  key_cache_seen: ColumnType<number, number | undefined, number>;
}

declare module '../../storage/schema.js' {
  interface Database {
    gateway_instances: GatewayInstancesTable;
  }
}
