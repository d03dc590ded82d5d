import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { CheckoutTokenVerifier, PanelSessionVerifier } from './http/actors.js';
import type { JobRunner } from './jobs/queue.js';
import type { Clock } from './lib/clock.js';
import type { AccessTokens } from './modules/auth/jwt.js';
import type { KeyCache } from './modules/api-keys/key-cache.js';
import type { CallbackHandlers } from './modules/callbacks/dispatch.js';
import type { Vault } from './modules/cards/vault.js';
import type { Metrics } from './modules/metrics/registry.js';
import type { ProcessorRegistry } from './processors/registry.js';
import { runTransaction } from './storage/after-commit.js';
import type { Db, Storage } from './storage/db.js';
import type { Secrets } from './storage/secrets.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The wiring built at start; the server and tests reach jobs and storage through it. */
    ctx: AppContext;
  }
}

/**
 * Everything a module needs, built once at start by app.ts and passed down (no container).
 * Domain actions take `verb(ctx, input)` with a slice of this; `db` may be a transaction the caller owns.
 */
export interface AppContext {
  config: Config;
  storage: Storage;
  db: Db;
  clock: Clock;
  secrets: Secrets;
  tokens: AccessTokens;
  logger: FastifyBaseLogger;
  jobs: JobRunner;
  vault: Vault;
  processors: ProcessorRegistry;
  checkoutVerifier: CheckoutTokenVerifier;
  /** The control panel's session cookie is checked through this (modules/panel-sessions). */
  panelSessions: PanelSessionVerifier;
  /** Verified provider callbacks are dispatched here (modules/callbacks/dispatch.ts). */
  callbackHandlers: CallbackHandlers;
  /** This process among the running gateway instances (modules/instances): holder of its idempotency claims. */
  instanceId: string;
  /** The exact API-key cache of this instance (modules/api-keys/key-cache.ts). */
  keyCache: KeyCache;
  /** Prometheus metrics of this instance (modules/metrics), served at GET /metrics. */
  metrics: Metrics;
}

/** The slice of the context most actions need: a db handle (or the caller's transaction) and the clock. */
export type DbContext = Pick<AppContext, 'db' | 'clock'>;

/**
 * Runs `work` in one transaction with the context's db replaced by it: the caller owns the transaction.
 * What `work` registers with `afterCommit` (storage/after-commit.ts) runs once it has committed.
 */
export function inTransaction<C extends { db: Db }, T>(ctx: C, work: (trx: C) => Promise<T>): Promise<T> {
  return runTransaction(ctx.db, (db) => work({ ...ctx, db }));
}
