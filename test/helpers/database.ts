import pg from 'pg';
import { randomBytes } from 'node:crypto';

/**
 * With TEST_DATABASE_URL (the throwaway cluster scripts/pg-cluster.sh starts), each gateway
 * gets a fresh database on the real PostgreSQL server; without it, embedded PGlite in memory.
 */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) return undefined;
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export const storageKind = () => (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
