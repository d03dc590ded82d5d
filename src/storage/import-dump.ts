import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openStorage } from './db.js';
import { EmbeddedServerError, startEmbeddedServer } from './embedded-server.js';

export interface ImportResult {
  /** The merchants the imported store holds. */
  merchants: number;
}

/**
 * Loads a plain SQL dump (what `pg_dump` of @electric-sql/pglite-tools writes from the earlier embedded
 * store: statements and INSERTs) into DATA_DIR's embedded server, in place of its database, then brings
 * it to this version's schema with the migrations still due. The database replaced must hold no
 * merchant, and no gateway may be running on it: an import never overwrites a store in use.
 * psql meta-commands (lines starting with a backslash) are left out; the rest runs as one transaction,
 * so a dump that fails leaves an empty database behind, never half of one.
 */
export async function importDump(dataDir: string, file: string): Promise<ImportResult> {
  const dump = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
  const server = await startEmbeddedServer(dataDir, { role: 'tool' });
  try {
    if (!server.owned) {
      throw new EmbeddedServerError(`a gateway is running on ${dataDir}: stop it before importing into its store`);
    }
    const database = new URL(server.url).pathname.slice(1);
    await onDatabase(server.url, async (client) => {
      const made = await client.query<{ made: boolean }>(`select to_regclass('public.merchants') is not null as made`);
      const count = async () => (await client.query<{ n: string }>('select count(*) as n from merchants')).rows[0].n;
      const held = made.rows[0].made ? Number(await count()) : 0;
      if (held > 0) {
        throw new EmbeddedServerError(
          `the store in ${dataDir} already holds ${held} merchant(s): import only into a new data directory`,
        );
      }
    });
    await onDatabase(adminUrl(server.url), async (client) => {
      await client.query(`drop database ${database} with (force)`);
      await client.query(`create database ${database}`);
    });
    await onDatabase(server.url, async (client) => {
      await client.query(`begin;\n${dump}\ncommit;`);
    });
    // The migrations the earlier version had not run yet (its kysely_migration table came with the dump).
    const storage = await openStorage({ databaseUrl: server.url });
    try {
      const { n } = await storage.db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return { merchants: Number(n) };
    } finally {
      await storage.close();
    }
  } finally {
    await server.stop();
  }
}

function adminUrl(url: string): string {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}

async function onDatabase(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
