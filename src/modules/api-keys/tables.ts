/** API keys and their modes belong to the api-keys module, which issues, verifies and revokes them. */
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from '../../storage/schema.js';

export type KeyMode = 'test' | 'live';

export interface ApiKeysTable {
  id: Generated<number>;
  merchant_id: number;
  user_id: number;
  mode: KeyMode;
  key_hash: string;
  /** First characters of the key, for display ("svc_test_sk_Ab12…"). */
  display_prefix: string;
  created_at: CreatedAt;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Set when the key was seen somewhere public (legacy checkout URL). */
  exposed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

declare module '../../storage/schema.js' {
  interface Database {
    api_keys: ApiKeysTable;
  }
}
