/** The jobs table belongs to the durable queue (jobs/queue.ts), below the modules that insert and handle jobs. */
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Timestamp } from '../storage/schema.js';

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  merchant_id: number | null;
  payload: ColumnType<unknown, string, string>;
  dedupe_key: string | null;
  run_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: number;
  locked_until: Timestamp | null;
  last_error: string | null;
  completed_at: Timestamp | null;
  failed_at: Timestamp | null;
  created_at: CreatedAt;
}

declare module '../storage/schema.js' {
  interface Database {
    jobs: JobsTable;
  }
}
