import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.js';
import { ManualClock, type Clock } from '../../src/lib/clock.js';
import { inTransaction } from '../../src/storage/db-context.js';
import { DEFAULT_LOAD_LIMITS } from '../../src/http/load-shedding.js';
import { rotateApiKey } from '../../src/modules/api-keys/index.js';
import { createMerchant, setMerchantStatus } from '../../src/modules/merchants/index.js';
import { startGateway, type Gateway, type StartOptions } from '../../src/server.js';
import type { Db } from '../../src/storage/db.js';
import type { KeyMode } from '../../src/modules/api-keys/index.js';
import type { MerchantStatus } from '../../src/modules/merchants/index.js';
import { freshDatabaseUrl, listenEnvFor } from './database.js';
import { useStarted } from './lifecycle.js';

export interface CallOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  contentType?: string;
  apiKey?: string;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestMerchant {
  merchantId: number;
  userId: number;
  email: string;
  password: string;
  apiKey: string;
  liveKey?: string;
}

export interface TestGateway {
  url: string;
  config: Config;
  gateway: Gateway;
  clock: ManualClock;
  db: Db;
  /** Every log line written so far, raw. */
  logs(): string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  /** Runs every durable job due at the manual clock's time. */
  runJobs(): Promise<number>;
  merchant(options?: { mode?: KeyMode; status?: MerchantStatus; withLiveKey?: boolean }): Promise<TestMerchant>;
  close(): Promise<void>;
}

let counter = 0;
export const PASSWORD = 'correct horse battery staple';

/**
 * Starts the real gateway on a random loopback port, on a fresh database of the suite's PostgreSQL
 * server (see database.ts), with a manual clock and captured logs. Tests talk to it over HTTP.
 */
export async function startTestGateway(
  options: { env?: Record<string, string>; clock?: Clock; http?: StartOptions['http'] } = {},
): Promise<TestGateway> {
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(new Date('2026-03-01T12:00:00Z'));
  const databaseUrl = await freshDatabaseUrl();
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    DATA_DIR: 'memory://',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    // Tests sign in far more often than people do, all from 127.0.0.1 and mostly within one minute of a
    // manual clock: only the tests of the sign-in limit itself use its real quota.
    SIGNIN_RATE_LIMIT_MAX: '1000000',
    DATABASE_URL: databaseUrl,
    ...options.env,
    ...listenEnvFor(options.env?.DATABASE_URL ?? databaseUrl),
  });
  let logText = '';
  const logDestination = new Writable({
    write(chunk, _encoding, callback) {
      logText += chunk.toString();
      callback();
    },
  });
  // Every answer of every test is checked against its route's declared statuses; a file that saw an
  // undeclared one fails when it closes its gateway.
  const undeclared: string[] = [];
  const http = {
    onUndeclaredStatus: (violation: string) => undeclared.push(violation),
    // Two files' gateways and browsers share two busy cores, where the event loop can lag for a second
    // without anything being wrong; only the load-shedding test sheds on it.
    loadLimits: { ...DEFAULT_LOAD_LIMITS, maxEventLoopDelayMs: 0 },
    ...options.http,
  };
  const gateway = await startGateway(config, { clock, logDestination, runJobs: false, http });
  const db = gateway.db;

  const call = async <T = any>(method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= opts.contentType ?? 'application/json';
    }
    const response = await fetch(`${gateway.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (HTML page, plain text)
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const merchant: TestGateway['merchant'] = async ({ mode = 'test', status, withLiveKey } = {}) => {
    const email = `merchant${++counter}-${Date.now()}@example.com`;
    const ctx = { db, clock };
    const created = await inTransaction(ctx, (trx) =>
      createMerchant(trx, { email, password: PASSWORD, name: `Merchant ${counter}` }),
    );
    const apiKey = await inTransaction(ctx, (trx) => rotateApiKey(trx, { userId: created.userId, mode }));
    const liveKey = withLiveKey
      ? await inTransaction(ctx, (trx) => rotateApiKey(trx, { userId: created.userId, mode: 'live' }))
      : undefined;
    if (status) await setMerchantStatus({ db }, { merchantId: created.merchantId, status });
    return { ...created, password: PASSWORD, apiKey, liveKey };
  };

  return {
    url: gateway.url,
    config,
    gateway,
    clock,
    db,
    logs: () => logText,
    runJobs: () => gateway.app.ctx.jobs.runDue(),
    call,
    merchant,
    close: async () => {
      await gateway.close();
      if (undeclared.length > 0)
        throw new Error(`Answers the OpenAPI document does not declare:\n${[...new Set(undeclared)].join('\n')}`);
    },
  };
}

/** The one setup of a test file: a gateway started before its tests and closed after them. */
export function useGateway(
  options: Parameters<typeof startTestGateway>[0] | (() => Parameters<typeof startTestGateway>[0]) = {},
): TestGateway {
  return useStarted(() => startTestGateway(typeof options === 'function' ? options() : options));
}

/** Every log line written so far, parsed. */
export const logLines = (gw: Pick<TestGateway, 'logs'>): Array<Record<string, any>> =>
  gw
    .logs()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

/** The access-log lines of one request (the gateway's "request" line, written once the answer has gone out). */
export const requestLogLines = (gw: Pick<TestGateway, 'logs'>, requestId: string | null): Array<Record<string, any>> =>
  logLines(gw).filter((line) => line.msg === 'request' && line.reqId === requestId);
