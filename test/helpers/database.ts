import pg from 'pg';
import { randomBytes } from 'node:crypto';

/**
 * With TEST_DATABASE_URL (the throwaway cluster scripts/pg-cluster.sh starts), each gateway
 * gets a fresh database on the real PostgreSQL server; without it, embedded PGlite in memory.
 */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const admin = process.env.TEST_DATABASE_URL;
  return admin ? createDatabase(admin) : undefined;
}

/**
 * A fresh database on the real PostgreSQL server, for the tests that need one on every pass, PGlite's
 * included (scripts/test.sh exports TEST_POSTGRES_SERVER, the server itself, never the PgBouncer).
 */
export async function freshPostgresDatabaseUrl(): Promise<string> {
  const server = process.env.TEST_POSTGRES_SERVER;
  if (!server)
    throw new Error('TEST_POSTGRES_SERVER is not set: run scripts/test.sh, or set it to a PostgreSQL admin URL');
  return createDatabase(server);
}

async function createDatabase(adminUrl: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The suite's last server pass reaches PostgreSQL through a transaction-pooling PgBouncer
 * (scripts/test.sh), through which LISTEN hears nothing; TEST_DATABASE_LISTEN_SERVER is the server
 * itself, and a database behind the bouncer is listened to there (DATABASE_LISTEN_URL), as in production.
 */
export function listenEnvFor(databaseUrl: string | undefined): Record<string, string> {
  const direct = process.env.TEST_DATABASE_LISTEN_SERVER;
  const pooled = process.env.TEST_DATABASE_URL;
  if (!direct || !pooled || !databaseUrl || new URL(databaseUrl).host !== new URL(pooled).host) return {};
  const url = new URL(direct);
  url.pathname = new URL(databaseUrl).pathname;
  return { DATABASE_LISTEN_URL: url.toString() };
}

export const storageKind = () => (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
