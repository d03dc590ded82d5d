import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The raw baseline: the least a durable payment API could do per request on this machine and
 * this database: parse a ~1 KB JSON body, one INSERT … RETURNING (its own committed, fsynced
 * transaction), answer JSON. Same Fastify, same driver, same pool size as the gateway. GET /json is
 * the raw JSON baseline: Fastify answering a small JSON object, no database.
 *
 * Env: BASELINE_PORT; DATABASE_URL (PostgreSQL) or DATA_DIR (PGlite).
 */
const CREATE_TABLE = `create table if not exists bench_baseline (
  id bigserial primary key,
  payload jsonb not null,
  created_at timestamptz not null default now()
)`;
const INSERT = 'insert into bench_baseline (payload) values ($1) returning id, created_at';

type Query = (text: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

async function openDatabase(): Promise<{ query: Query; close(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 /* the gateway's pool size */ });
    return { query: (text, values) => pool.query(text, values), close: () => pool.end() };
  }
  const pglite = new PGlite(path.join(process.env.DATA_DIR!, 'pgdata'));
  await pglite.waitReady;
  return { query: (text, values) => pglite.query(text, values), close: () => pglite.close() };
}

async function main(): Promise<void> {
  const db = await openDatabase();
  await db.query(CREATE_TABLE);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.post('/rows', async (request) => {
    const { rows } = await db.query(INSERT, [JSON.stringify(request.body)]);
    return { id: Number(rows[0].id), createdAt: rows[0].created_at };
  });
  app.get('/healthz', async () => ({ ok: true }));
  // The raw JSON baseline of an authenticated GET /ping: a small JSON answer, nothing else.
  app.get('/json', async () => ({ message: 'pong' }));
  await app.listen({ port: Number(process.env.BASELINE_PORT ?? 0), host: '127.0.0.1' });
  const stop = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`baseline server failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
