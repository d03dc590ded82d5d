import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { systemClock } from './lib/clock.js';
import type { Database } from './storage/schema.js';

/** Nothing listens here: a query would fail at once rather than reach a database. */
const NO_DATABASE = 'postgres://nobody@127.0.0.1:9/none';
const PLACEHOLDER_SECRET = 'openapi-document-placeholder-secret';

/**
 * The gateway's OpenAPI document (/openapi.json) as the routes declare it, built without a database or
 * a listening server: what `npm run sdk:generate` turns into the SDK's types, and what the document's
 * own checks read. Building the routes queries nothing; the pool is never asked for a connection.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    DATA_DIR: 'memory://',
    SEED_DEMO: 'false',
    PUBLIC_URL: 'http://localhost:3000',
    DATABASE_URL: NO_DATABASE,
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: NO_DATABASE, max: 1 }) }),
  });
  const app = await buildApp({
    config,
    storage: {
      db,
      ping: async () => {},
      close: () => db.destroy(),
      listen: async () => async () => {},
      poolStats: () => ({ total: 0, idle: 0, waiting: 0 }),
    },
    clock: systemClock,
    secrets: {
      jwtSecret: PLACEHOLDER_SECRET,
      callbackSigningSecret: PLACEHOLDER_SECRET,
      cardEncryptionKeys: `doc:${Buffer.alloc(32).toString('base64')}`,
      cardFingerprintSecret: PLACEHOLDER_SECRET,
      idempotencyFingerprintSecret: PLACEHOLDER_SECRET,
    },
    logger: pino({ level: 'silent' }),
    sandboxUrl: 'http://127.0.0.1:9',
    instanceId: 'openapi-document',
  });
  try {
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await app.close();
    await db.destroy();
  }
}
