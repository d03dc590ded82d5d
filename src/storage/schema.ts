import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Kysely table types. Every merchant-owned table carries merchant_id (see docs/decisions.md). */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type MerchantStatus = 'active' | 'restricted' | 'suspended';
export type KeyMode = 'test' | 'live';

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
  created_at: CreatedAt;
}

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

export interface LoginFailuresTable {
  /** Lower-cased e-mail as typed: tracked whether or not an account exists, so locking reveals nothing. */
  email: string;
  failures: number;
  locked_until: Timestamp | null;
  updated_at: Timestamp;
}

export interface SystemSecretsTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

export interface Database {
  merchants: MerchantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  login_failures: LoginFailuresTable;
  system_secrets: SystemSecretsTable;
}

export type Merchant = Selectable<MerchantsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
