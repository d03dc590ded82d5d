import type { ColumnType } from 'kysely';

/**
 * The database as Kysely sees it. Storage declares only its own table here; each module adds the
 * tables it owns by augmenting `Database` in its tables.ts (the jobs table: jobs/tables.ts), so the
 * domain's vocabulary lives with the domain and storage imports none of it.
 * Every merchant-owned table carries merchant_id (see docs/decisions.md).
 */
export interface Database {
  system_secrets: SystemSecretsTable;
}

/** Column helpers the tables share. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface SystemSecretsTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}
