/** Processor connections belong to the processor-connections module, which alone reads and writes them. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';
import type { KeyMode } from '../api-keys/index.js';

/** The processors a merchant can connect: the real ones, and the built-in sandbox (test mode only). */
export type ProcessorKind = 'stripe' | 'adyen' | 'sandbox';

/**
 * The payment paths a connection serves: acme and globex are the spec's two card paths
 * (/payments/creditCard/{slot}/{id}); h2h the host-to-host card and token payments and the hosted checkout's card form.
 */
export type ConnectionSlot = 'acme' | 'globex' | 'h2h';

/** A merchant's connection to a processor in one mode, its credentials encrypted with the vault's key. */
export interface ProcessorConnectionsTable {
  id: Generated<number>;
  /** pc_ + random base62: the id the API and the webhook receivers' paths use. */
  public_id: string;
  merchant_id: number;
  mode: KeyMode;
  processor: ProcessorKind;
  name: string | null;
  /** The credentials as JSON, AES-256-GCM under the vault key `credentials_key_id` (cards/vault.ts). */
  credentials_ciphertext: string;
  credentials_key_id: string;
  slots: ConnectionSlot[];
  /** Higher first among the connections serving a slot. */
  priority: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * What a connector sent for one authorization, by the gateway's reference (`pay_<id>`): the Stripe
 * connector's journal, so that any instance settles a timed-out authorization. Never card data.
 */
export interface ProcessorAttemptsTable {
  reference: string;
  facts: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

declare module '../../storage/schema.js' {
  interface Database {
    processor_connections: ProcessorConnectionsTable;
    processor_attempts: ProcessorAttemptsTable;
  }
}
