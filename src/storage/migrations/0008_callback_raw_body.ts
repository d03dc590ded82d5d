import type { Kysely } from 'kysely';

/**
 * The bytes of each callback exactly as received (the JSON text, the form body, the query string of
 * a GET): the signed document, re-verifiable later, which the parsed `payload` is not (jsonb drops
 * member order, spacing and duplicate members). Null on rows received before this column existed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('callback_events').addColumn('raw_body', 'text').execute();
}
