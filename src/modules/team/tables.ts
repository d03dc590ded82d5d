/** Team invitations belong to the team module, which sends, accepts and revokes them. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';
import type { UserRole } from '../merchants/index.js';

/** An invitation to a merchant's team; the link's token only as a hash (modules/team). */
export interface TeamInvitationsTable {
  id: Generated<number>;
  merchant_id: number;
  email: string;
  role: UserRole;
  token_hash: string;
  /** Random; with the gateway's secret it gives the token back when the e-mail is sent (not the token). */
  token_nonce: string;
  invited_by: number;
  notice_id: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

declare module '../../storage/schema.js' {
  interface Database {
    team_invitations: TeamInvitationsTable;
  }
}
