import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrate } from '../../src/storage/db.js';

/**
 * Every test database lives on the suite's PostgreSQL server: the throwaway cluster scripts/test.sh (or,
 * when a file is run on its own, test/global-setup.ts) starts from the embedded server's binaries.
 * TEST_POSTGRES_SERVER is that server itself (an admin URL); TEST_DATABASE_URL is the way gateways
 * reach it: the server, or a transaction-pooling PgBouncer in front of it (the Node 24 pass).
 */
const server = () => required('TEST_POSTGRES_SERVER');

/**
 * The migrated database every test database of this run is cloned from (prepareTestDatabases makes it;
 * the test processes find its name in their environment). One per run: runs from several worktrees may
 * share the server at once, and a template being copied cannot be dropped or remade.
 */
const template = () => required('TEST_TEMPLATE_DATABASE');

/**
 * Once per run, before any test: the suite's server (started here with scripts/pg-cluster.sh when
 * TEST_POSTGRES_SERVER is unset, and left running for the next run) and the migrated template every
 * test database is cloned from, so that a gateway's start copies a database instead of migrating one.
 */
export async function prepareTestDatabases(): Promise<() => Promise<void>> {
  if (!process.env.TEST_POSTGRES_SERVER) {
    const url = execFileSync('bash', ['scripts/pg-cluster.sh', 'start'], { encoding: 'utf8' }).trim();
    process.env.TEST_POSTGRES_SERVER = url;
    process.env.TEST_DATABASE_URL ??= url;
  }
  const name = `template_${randomBytes(6).toString('hex')}`;
  process.env.TEST_TEMPLATE_DATABASE = name;
  await onServer((admin) => admin.query(`create database ${name}`));
  const url = new URL(server());
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  const db = new Kysely<never>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrate(db as never);
  } finally {
    // A template is copied only while nobody is connected to it.
    await db.destroy();
  }
  return () => onServer((admin) => admin.query(`drop database if exists ${name} with (force)`));
}

async function onServer(work: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: server() });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** A fresh database, already migrated (a copy of the template), reached the way gateways reach it. */
export async function freshDatabaseUrl(): Promise<string> {
  return reachable(await createDatabase(`template ${template()}`));
}

/** A fresh database without any table (for the tests of the migrations themselves). */
export async function emptyDatabaseUrl(): Promise<string> {
  return reachable(await createDatabase('template template0'));
}

/**
 * A fresh migrated database on the server directly, never through the PgBouncer (tests that drop
 * connections, prepare statements or read the server's plans).
 */
export async function freshPostgresDatabaseUrl(): Promise<string> {
  const url = new URL(server());
  url.pathname = `/${await createDatabase(`template ${template()}`)}`;
  return url.toString();
}

async function createDatabase(from: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: server() });
  await client.connect();
  try {
    await client.query(`create database ${name} ${from}`);
  } finally {
    await client.end();
  }
  return name;
}

function reachable(name: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? server());
  url.pathname = `/${name}`;
  return url.toString();
}

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the tests with npm test or vitest (test/global-setup.ts sets it)`);
  return value;
}

/**
 * Behind the transaction-pooling PgBouncer LISTEN hears nothing: TEST_DATABASE_LISTEN_SERVER is the
 * server itself, and a database behind the bouncer is listened to there (DATABASE_LISTEN_URL), as in production.
 */
export function listenEnvFor(databaseUrl: string | undefined): Record<string, string> {
  const direct = process.env.TEST_DATABASE_LISTEN_SERVER;
  const pooled = process.env.TEST_DATABASE_URL;
  if (!direct || !pooled || !databaseUrl || new URL(databaseUrl).host !== new URL(pooled).host) return {};
  const url = new URL(direct);
  url.pathname = new URL(databaseUrl).pathname;
  return { DATABASE_LISTEN_URL: url.toString() };
}
