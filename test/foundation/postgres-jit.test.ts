import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';

// PostgreSQL JIT-compiles a statement whose estimated cost passes jit_above_cost; the delivery claim was
// compiled on every call in half the bench's runs (~23 ms each, all of it compiling), and notifications
// fell seconds behind. The gateway's sessions run with JIT off. Here the database compiles every statement
// (jit_above_cost = 0): a plain session proves the server would, the gateway's sessions must not.
// Needs a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
let url: URL;
let storage: Storage | undefined;

beforeAll(async () => {
  url = new URL(await freshPostgresDatabaseUrl());
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`alter database ${url.pathname.slice(1)} set jit_above_cost = 0`);
  } finally {
    await admin.end();
  }
});
afterAll(async () => storage?.close());

/** The JIT part of a statement's EXPLAIN ANALYZE: what was compiled, if anything. */
const QUERY = 'explain (analyze, format json) select sum(g * 2) from generate_series(1, 1000) g';
const jitOf = (rows: Array<Record<string, unknown>>) =>
  (rows[0]['QUERY PLAN'] as Array<{ JIT?: { Functions: number } }>)[0].JIT;

it("compiles no statement with JIT in the gateway's sessions, where the server compiles every one", async () => {
  const plain = new pg.Client({ connectionString: url.toString() });
  await plain.connect();
  try {
    const { rows } = await plain.query(QUERY);
    expect(jitOf(rows)?.Functions, 'the server compiles it for a session of its own').toBeGreaterThan(0);
  } finally {
    await plain.end();
  }

  // The URL's own options are kept beside the gateway's.
  const withOptions = new URL(url);
  withOptions.searchParams.set('options', '-c statement_timeout=4321');
  storage = await openStorage({ databaseUrl: withOptions.toString() });
  const { rows } = await sql.raw<Record<string, unknown>>(QUERY).execute(storage.db);
  expect(jitOf(rows)).toBeUndefined();
  const timeout = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(storage.db);
  expect(timeout.rows[0].statement_timeout).toBe('4321ms');
});
