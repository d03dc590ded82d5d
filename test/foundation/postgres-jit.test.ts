import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';

// PostgreSQL JIT-compiles a statement whose estimated cost passes jit_above_cost; on a server built with
// LLVM the delivery claim was compiled on every call in half the bench's runs (~23 ms each, all of it
// compiling), and notifications fell seconds behind. The gateway's sessions run with JIT off, whatever
// the server or the database says. The suite's server (the npm binaries, built without LLVM) cannot
// compile, so what is checked is the setting every statement of those sessions runs under.
let url: URL;
let storage: Storage | undefined;

beforeAll(async () => {
  url = new URL(await freshPostgresDatabaseUrl());
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`alter database ${url.pathname.slice(1)} set jit = on`);
    await admin.query(`alter database ${url.pathname.slice(1)} set jit_above_cost = 0`);
  } finally {
    await admin.end();
  }
});
afterAll(async () => storage?.close());

it("runs the gateway's sessions with JIT off where the database turns it on for every statement", async () => {
  const plain = new pg.Client({ connectionString: url.toString() });
  await plain.connect();
  try {
    const { rows } = await plain.query<{ jit: string }>('show jit');
    expect(rows[0].jit, 'a session of its own takes the database setting').toBe('on');
  } finally {
    await plain.end();
  }

  // The URL's own options are kept beside the gateway's.
  const withOptions = new URL(url);
  withOptions.searchParams.set('options', '-c statement_timeout=4321');
  storage = await openStorage({ databaseUrl: withOptions.toString() });
  const jit = await sql<{ jit: string }>`show jit`.execute(storage.db);
  expect(jit.rows[0].jit).toBe('off');
  // Inside its transactions too.
  const inTransaction = await storage.db.transaction().execute((trx) => sql<{ jit: string }>`show jit`.execute(trx));
  expect(inTransaction.rows[0].jit).toBe('off');
  const timeout = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(storage.db);
  expect(timeout.rows[0].statement_timeout).toBe('4321ms');
});
