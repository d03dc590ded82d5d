/** Customer records belong to the customers module, which creates, updates and lists them. */
import type { Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export interface CustomersTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  /** The user whose API key created the record (spec field userId). */
  user_id: number;
  name: string;
  email: string;
  address: string | null;
  phone: string | null;
  member_id: string | null;
  /** ISO 3166-1 alpha-2, as the payer field country. */
  country: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../storage/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}
