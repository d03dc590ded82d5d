import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../storage/db.js';
import { hot } from '../../storage/prepared.js';
import type { KeyMode } from '../api-keys/index.js';
import type { ConnectionSlot, ProcessorConnectionsTable } from './tables.js';

/** A merchant and mode: every connection the API reaches is confined to one. */
export interface ConnectionScope {
  merchantId: number;
  mode: KeyMode;
}

export type ConnectionRow = Selectable<ProcessorConnectionsTable>;

export type ConnectionChanges = Partial<
  Pick<ProcessorConnectionsTable, 'name' | 'slots' | 'priority' | 'credentials_ciphertext' | 'credentials_key_id'>
>;

export async function insertConnection(
  db: Db,
  values: Omit<Insertable<ProcessorConnectionsTable>, 'merchant_id' | 'mode' | 'slots'> &
    ConnectionScope & { slots: ConnectionSlot[] },
): Promise<ConnectionRow> {
  const { merchantId, mode, slots, ...rest } = values;
  return db
    .insertInto('processor_connections')
    .values({ ...rest, merchant_id: merchantId, mode, slots: textArray(slots) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The scope's connections, highest priority first, then oldest first; only those serving `slot` if named. */
export async function findConnections(db: Db, scope: ConnectionScope, slot?: ConnectionSlot): Promise<ConnectionRow[]> {
  const query = db
    .selectFrom('processor_connections')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode);
  if (slot === undefined) return query.orderBy('priority', 'desc').orderBy('id', 'asc').execute();
  // Every card payment asks this (most merchants have no connection): a prepared statement, so the
  // server plans it once per connection rather than on every payment.
  const compiled = query
    .where(sql<boolean>`slots @> array[${slot}]::text[]`)
    .orderBy('priority', 'desc')
    .orderBy('id', 'asc')
    .compile();
  return (await db.executeQuery(hot('connections_for', compiled))).rows;
}

/** One connection of the scope; `lock` holds its row until the transaction ends. */
export async function findConnection(
  db: Db,
  scope: ConnectionScope,
  publicId: string,
  options: { lock?: boolean } = {},
): Promise<ConnectionRow | undefined> {
  let query = db
    .selectFrom('processor_connections')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('public_id', '=', publicId);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Whichever merchant's: the webhook receivers know a connection only by the id in their path. */
export async function findConnectionByPublicId(db: Db, publicId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('processor_connections').selectAll().where('public_id', '=', publicId).executeTakeFirst();
}

export async function updateConnectionRow(db: Db, id: number, changes: ConnectionChanges, now: Date) {
  const { slots, ...rest } = changes;
  return db
    .updateTable('processor_connections')
    .set({ ...rest, ...(slots !== undefined ? { slots: textArray(slots) } : {}), updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Returns false when no connection of the scope has this id. */
export async function deleteConnectionRow(db: Db, scope: ConnectionScope, publicId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('processor_connections')
    .where('merchant_id', '=', scope.merchantId)
    .where('mode', '=', scope.mode)
    .where('public_id', '=', publicId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

// pg sends a JavaScript array as an array literal of unknown type; the cast names it.
const textArray = (values: readonly string[]) => sql<ConnectionSlot[]>`${[...values]}::text[]`;
