import type { DestinationStream } from 'pino';
import { startSandbox, type Sandbox } from '../sandbox/server.js';
import { buildApp, type BuildAppOptions } from './app.js';
import type { App } from './http/fastify-app.js';
import type { Config } from './config.js';
import { createLogger } from './http/logging.js';
import { systemClock, type Clock } from './lib/clock.js';
import { refuseLiveKeysOnDevelopmentStore, startKeyCache, type KeyCache } from './modules/api-keys/index.js';
import { startHeartbeat, type Heartbeat } from './modules/instances/index.js';
import { seedDemoMerchant, type DemoCredentials } from './modules/merchants/index.js';
import { openStorage, type Db, type Storage } from './storage/db.js';
import { startEmbeddedServer, type EmbeddedServer } from './storage/embedded-server.js';
import { cardKeyInStore, loadSecrets, type Secrets } from './storage/secrets.js';

export interface Gateway {
  app: App;
  /** The built-in sandbox network, when this gateway started one. */
  sandbox?: Sandbox;
  db: Db;
  url: string;
  demo?: DemoCredentials;
  /** The embedded PostgreSQL server this gateway runs (without DATABASE_URL); stopped by close(). */
  embedded?: EmbeddedServer;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** Where log lines go (tests capture them to prove redaction). Default: stdout. */
  logDestination?: DestinationStream;
  /** Poll the job queue in the background (default). Tests turn it off and run jobs explicitly. */
  runJobs?: boolean;
  /** HTTP settings beyond the environment (tests: contract check, load limits, a front-end build). */
  http?: Pick<BuildAppOptions, 'frontEndsDir' | 'loadLimits' | 'onUndeclaredStatus'>;
  /**
   * Set in a cluster worker (src/cluster.ts): the primary has prepared the store (migrations, secrets,
   * demo merchant) and runs the one built-in sandbox every worker uses, so its in-flight 3-D Secure
   * and UPI pages are the same whichever worker a browser reaches.
   */
  worker?: { builtInSandboxUrl: string | undefined };
}

export interface PreparedStore {
  storage: Storage;
  secrets: Secrets;
  demo?: DemoCredentials;
}

/**
 * Without DATABASE_URL, starts the embedded PostgreSQL server on DATA_DIR (src/storage/embedded-server.ts)
 * as a gateway: it runs until the returned server is stopped, or this process ends.
 */
export async function startEmbeddedDatabase(config: Config): Promise<EmbeddedServer | undefined> {
  if (config.databaseUrl) return undefined;
  return startEmbeddedServer(config.dataDir, { role: 'gateway' }).catch((error: Error) => {
    throw new Error(`DATA_DIR: the embedded PostgreSQL server could not start: ${error.message}`, { cause: error });
  });
}

/**
 * Opens the store (migrating it) and readies what every instance needs from it: the caller closes it.
 * `embedded` is the server started for a config without DATABASE_URL.
 */
export async function prepareStore(
  config: Config,
  clock: Clock,
  embedded: EmbeddedServer | undefined,
  seedDemo = config.seedDemo,
): Promise<PreparedStore> {
  const storage = await openStorage({
    databaseUrl: embedded?.url ?? config.databaseUrl!,
    listenUrl: config.databaseListenUrl,
    preparedStatements: config.preparedStatements,
    groupCommit: config.groupCommit,
  }).catch((error: Error) => {
    // Name the setting to fix (never the URL itself: it may hold a password).
    throw new Error(`${embedded ? 'DATA_DIR' : 'DATABASE_URL'}: the store could not be opened: ${error.message}`, {
      cause: error,
    });
  });
  try {
    await refuseLiveKeysOnDevelopmentStore({ db: storage.db }, { cardKeyInStore: cardKeyInStore(config) });
    const secrets = await loadSecrets(storage.db, config);
    const demo = seedDemo ? await seedDemoMerchant({ db: storage.db, clock }) : undefined;
    return { storage, secrets, demo };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** The one start-up function: config → storage → secrets → modules → routes → listen. */
export async function startGateway(config: Config, options: StartOptions = {}): Promise<Gateway> {
  const clock = options.clock ?? systemClock;
  const logger = createLogger(config.logLevel, options.logDestination);
  const embedded = await startEmbeddedDatabase(config);
  const prepared = await prepareStore(config, clock, embedded, config.seedDemo && !options.worker).catch(
    async (error: Error) => {
      await embedded?.stop();
      throw error;
    },
  );
  const { storage, secrets, demo } = prepared;
  let sandbox: Sandbox | undefined;
  let heartbeat: Heartbeat | undefined;
  let keyCache: KeyCache | undefined;
  try {
    // The built-in sandbox network runs beside the gateway on loopback and is reached over HTTP,
    // exactly like an external processor; SANDBOX_URL points at one running elsewhere instead.
    if (!config.sandboxUrl && !options.worker) sandbox = await startBuiltInSandbox(config, secrets);
    heartbeat = await startHeartbeat(storage.db, logger);
    keyCache = await startKeyCache(
      { storage, instanceId: heartbeat.instanceId, logger },
      { enabled: config.apiKeyCache },
    );
    const app = await buildApp({
      config,
      storage,
      clock,
      secrets,
      logger,
      sandboxUrl: config.sandboxUrl ?? options.worker?.builtInSandboxUrl ?? sandbox!.url,
      instanceId: heartbeat.instanceId,
      keyCache,
      ...options.http,
    });
    await app.listen({ port: config.port, host: config.host }).catch(async (error: Error) => {
      // A failed listen must not leave the rate limiter's Redis client reconnecting forever.
      await app.close();
      throw new Error(`HOST/PORT: cannot listen on ${config.host}:${config.port}: ${error.message}`, { cause: error });
    });
    if (options.runJobs !== false) app.ctx.jobs.start();
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `${config.tls ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    if (sandbox) pointSandboxAt(sandbox, config, url);
    let closing: Promise<void> | undefined;
    return {
      app,
      db: storage.db,
      sandbox,
      url,
      demo,
      embedded,
      close: () =>
        (closing ??= (async () => {
          // Stops accepting at once, then the job loop, then the clients (onClose hooks, app.ts).
          await app.close();
          await keyCache!.stop();
          await heartbeat!.stop();
          await sandbox?.close();
          await storage.close();
          await embedded?.stop();
        })()),
    };
  } catch (error) {
    await keyCache?.stop();
    await heartbeat?.stop();
    await sandbox?.close();
    await storage.close();
    await embedded?.stop();
    throw error;
  }
}

/** Tells the built-in sandbox where the gateway it serves listens, once it does. */
export function pointSandboxAt(sandbox: Sandbox, config: Config, gatewayUrl: string): void {
  // Callbacks go straight to the gateway on loopback (PUBLIC_URL may name a proxy in front).
  sandbox.setGatewayUrl(gatewayUrl);
  // The payer's browser reaches the built-in sandbox's pages through the gateway (http/sandbox-pages.ts).
  sandbox.setPublicUrl(config.publicUrlGiven ? config.publicUrl : gatewayUrl);
}

export function startBuiltInSandbox(config: Config, secrets: Secrets): Promise<Sandbox> {
  return startSandbox({
    gatewayUrl: config.publicUrl,
    callbackSecret: secrets.callbackSigningSecret,
    latencyMs: config.sandboxLatencyMs,
    upiCollectTtlSeconds: config.upiCollectTtlSeconds,
  });
}
