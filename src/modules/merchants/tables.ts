/** Merchants and their users belong to the merchants module, which creates both; so do their statuses and roles. */
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from '../../storage/schema.js';

export type MerchantStatus = 'active' | 'restricted' | 'suspended';

/** owner: everything, the audit log included; developer: all but the audit log; viewer: reads only. */
export type UserRole = 'owner' | 'developer' | 'viewer';

export interface MerchantsTable {
  id: Generated<number>;
  name: string;
  status: ColumnType<MerchantStatus, MerchantStatus | undefined, MerchantStatus>;
  default_processor: ColumnType<string, string | undefined, string>;
  notify_url: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  merchant_id: number;
  email: string;
  password_hash: string;
  role: ColumnType<UserRole, UserRole | undefined, UserRole>;
  created_at: CreatedAt;
  /** Removed from the merchant's team: the row stays (keys, customers, audit entries name it), sign-in does not. */
  removed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Moves on when every session and access token of the user must end (a password change or reset). */
  token_generation: ColumnType<number, number | undefined, number>;
}

declare module '../../storage/schema.js' {
  interface Database {
    merchants: MerchantsTable;
    users: UsersTable;
  }
}
