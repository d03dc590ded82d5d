/** Control-panel sessions belong to the panel-sessions module, which starts, verifies and ends them. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

/** A signed-in control-panel browser (the cookie's token only as a hash). */
export interface PanelSessionsTable {
  id: Generated<number>;
  user_id: number;
  merchant_id: number;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** The user's token generation when the session was opened: another one ends the session. */
  token_generation: ColumnType<number, number | undefined, number>;
}

declare module '../../storage/schema.js' {
  interface Database {
    panel_sessions: PanelSessionsTable;
  }
}
