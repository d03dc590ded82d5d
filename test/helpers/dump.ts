import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.js';

/**
 * Every row of every table of the gateway's database, as PostgreSQL writes it out as text: what a dump
 * or a backup of it holds.
 */
export async function databaseAsText(db: Db): Promise<string> {
  const tables = await sql<{ table_schema: string; table_name: string }>`
    select table_schema, table_name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by table_schema, table_name`.execute(db);
  const dumps: string[] = [];
  for (const { table_schema, table_name } of tables.rows) {
    const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(
      `${table_schema}.${table_name}`,
    )} t`.execute(db);
    dumps.push(`-- ${table_schema}.${table_name}`, ...rows.map((r) => r.row));
  }
  return dumps.join('\n');
}
