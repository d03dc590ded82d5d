import Fastify from 'fastify';
import pg from 'pg';

/**
 * The raw baseline: the least a durable payment API could do per request on this machine and
 * this database: parse a ~1 KB JSON body, one INSERT … RETURNING (its own committed, fsynced
 * transaction), answer JSON. Same Fastify, same driver, same pool size as the gateway. GET /json is
 * the raw JSON baseline: Fastify answering a small JSON object, no database.
 *
 * Env: BASELINE_PORT; DATABASE_URL, the database the measured gateway used (for the embedded store, its
 * server on the gateway's DATA_DIR, started again by the bench once the gateway has stopped).
 */
const CREATE_TABLE = `create table if not exists bench_baseline (
  id bigserial primary key,
  payload jsonb not null,
  created_at timestamptz not null default now()
)`;
const INSERT = 'insert into bench_baseline (payload) values ($1) returning id, created_at';

async function main(): Promise<void> {
  const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 /* the gateway's pool size */ });
  await db.query(CREATE_TABLE);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.post('/rows', async (request) => {
    const { rows } = await db.query<{ id: string; created_at: Date }>(INSERT, [JSON.stringify(request.body)]);
    return { id: Number(rows[0].id), createdAt: rows[0].created_at };
  });
  app.get('/healthz', async () => ({ ok: true }));
  // The raw JSON baseline of an authenticated GET /ping: a small JSON answer, nothing else.
  app.get('/json', async () => ({ message: 'pong' }));
  await app.listen({ port: Number(process.env.BASELINE_PORT ?? 0), host: '127.0.0.1' });
  const stop = async () => {
    await app.close();
    await db.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`baseline server failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
