import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createSecureContext } from 'node:tls';

/**
 * Configuration comes only from the environment and is validated once at start.
 * Every bad value is reported by name; the process then exits non-zero.
 */
export interface Config {
  env: 'development' | 'production';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** DATABASE_LISTEN_URL: the same database reached without a transaction-pooling proxy, for LISTEN. */
  databaseListenUrl: string | undefined;
  /**
   * DATABASE_PREPARED_STATEMENTS: the hot payment statements as named prepared statements.
   * Default: on, off when DATABASE_LISTEN_URL says DATABASE_URL is a transaction-pooling proxy.
   */
  preparedStatements: boolean;
  /**
   * DATABASE_GROUP_COMMIT: concurrent begins and settles of payments (and records of notification
   * attempts) sent as one multi-row statement
   * (src/storage/group-commit.ts). Default: on.
   */
  groupCommit: boolean;
  publicUrl: string;
  /** PUBLIC_URL was given: browsers reach the gateway there (else at its own listening address). */
  publicUrlGiven: boolean;
  checkoutUrl: string;
  /** Origins allowed to frame the checkout for every merchant (CHECKOUT_FRAME_ANCESTORS), besides the gateway's own. */
  checkoutFrameAncestors: string[];
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** Absent in development: generated once and persisted in storage. Required in production. */
  jwtSecret: string | undefined;
  callbackSigningSecret: string | undefined;
  /** Proxies whose X-Forwarded-* headers are believed (IPs or CIDRs). */
  trustedProxies: string[];
  logLevel: string;
  /**
   * max requests per windowSeconds per caller; signInMax attempts a minute per client address on the
   * sign-in routes (SIGNIN_RATE_LIMIT_MAX), whatever e-mail they name.
   */
  rateLimit: { max: number; windowSeconds: number; signInMax: number };
  redisUrl: string | undefined;
  /** Create the demo merchant on an empty store (development only). */
  seedDemo: boolean;
  /** "id:base64key,…", first is current. Absent in development: generated and persisted. */
  cardEncryptionKeys: string | undefined;
  cardFingerprintSecret: string | undefined;
  /** Keys the fingerprints of idempotent requests (http/idempotency.ts). Absent in development: generated and persisted. */
  idempotencyFingerprintSecret: string | undefined;
  /** An external sandbox network; when absent the gateway starts the built-in one on loopback. */
  sandboxUrl: string | undefined;
  sandboxLatencyMs: number;
  /** How long a processor call may take before the payment is left pending and reconciled later. */
  processorTimeoutMs: number;
  /**
   * Where the real processors' SDKs send their calls (a proxy or a test server): STRIPE_API_BASE
   * (scheme, host, port; default Stripe's own host), ADYEN_CHECKOUT_API_BASE (https; default the host
   * Adyen's SDK picks for the connection's environment), and ADYEN_CHECKOUT_INSECURE_TLS, which accepts a
   * self-signed certificate and is honoured only for a loopback ADYEN_CHECKOUT_API_BASE.
   */
  processorApis: { stripeApiBase?: string; adyenApiBase?: string; adyenUnverifiedTls: boolean };
  /** A connection's circuit opens after `failures` unavailable answers in a row, for `coolDownSeconds`. */
  processorCircuit: { failures: number; coolDownSeconds: number };
  /** THREEDS_CHALLENGE_TTL_SECONDS: a 3-D Secure challenge not answered in time fails the payment. */
  threeDsChallengeTtlSeconds: number;
  /** UPI_COLLECT_TTL_SECONDS: a UPI payment the payer does not answer in time fails (the built-in PSP's TTL too). */
  upiCollectTtlSeconds: number;
  /** Merchant notification targets on loopback/private/link-local/metadata addresses are allowed (default: development only). */
  webhookAllowPrivateTargets: boolean;
  /** How long one notification attempt may take (connect to last byte of the answer's head). */
  webhookTimeoutMs: number;
  /** API_KEY_CACHE (default true): the exact API-key cache (modules/api-keys/key-cache.ts); false reads every key. */
  apiKeyCache: boolean;
  /** Where e-mail notices go; unset in development → a file outbox under the data directory. */
  smtpUrl: string | undefined;
  /** METRICS_TOKEN: GET /metrics takes it as a bearer token; unset, /metrics is served only in development. */
  metricsToken: string | undefined;
  /** WORKERS: processes serving the one port (Node's cluster module); more than one needs DATABASE_URL. */
  workers: number;
  /** JOB_RETENTION_DAYS: completed jobs are deleted this long after they completed (failed ones are kept). */
  jobRetentionDays: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  /** "true" or "false"; undefined when unset. */
  const flag = (name: string): boolean | undefined => {
    const raw = read(name);
    if (raw === undefined || raw === 'true' || raw === 'false') return raw === undefined ? undefined : raw === 'true';
    problems.push(`${name} must be "true" or "false" (got "${raw}")`);
    return undefined;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const url = (name: string, value: string | undefined, protocols: string[]): string | undefined => {
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return value.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${value}")`);
      return undefined;
    }
  };

  const nodeEnv = read('NODE_ENV') ?? 'development';
  if (nodeEnv !== 'development' && nodeEnv !== 'production') {
    problems.push(`NODE_ENV must be "development" or "production" (got "${nodeEnv}")`);
  }
  const production = nodeEnv === 'production';

  const port = integer('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '127.0.0.1';
  if (isIP(host) === 0 && !HOSTNAME.test(host))
    problems.push(`HOST must be an IP address or a host name (got "${host}")`);
  const rawDataDir = read('DATA_DIR') ?? './data';
  // "memory://": the embedded server's cluster in a temporary directory, removed at exit (trials, the example shop).
  const dataDir = rawDataDir === 'memory://' ? rawDataDir : path.resolve(rawDataDir);
  if (dataDir !== 'memory://' && statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === false) {
    problems.push(`DATA_DIR must be a directory (or not exist yet); "${dataDir}" is a file`);
  }
  const databaseUrl = url('DATABASE_URL', read('DATABASE_URL'), ['postgres:', 'postgresql:']);

  const certFile = read('TLS_CERT_FILE');
  const keyFile = read('TLS_KEY_FILE');
  let tls: Config['tls'];
  if (Boolean(certFile) !== Boolean(keyFile)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  } else if (certFile && keyFile) {
    try {
      tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
    } catch (error) {
      problems.push(`TLS_CERT_FILE/TLS_KEY_FILE could not be read: ${(error as Error).message}`);
    }
    try {
      // Fails on anything but a PEM certificate and its matching private key.
      if (tls) createSecureContext(tls);
    } catch (error) {
      problems.push(
        `TLS_CERT_FILE/TLS_KEY_FILE must hold a PEM certificate and its private key: ${(error as Error).message}`,
      );
      tls = undefined;
    }
  }
  const scheme = tls ? 'https' : 'http';
  const publicUrl = url('PUBLIC_URL', read('PUBLIC_URL'), ['http:', 'https:']) ?? `${scheme}://localhost:${port}`;
  const checkoutUrl = url('CHECKOUT_URL', read('CHECKOUT_URL'), ['http:', 'https:']) ?? `${publicUrl}/checkout`;
  const checkoutFrameAncestors = (read('CHECKOUT_FRAME_ANCESTORS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const origin = url('CHECKOUT_FRAME_ANCESTORS', entry, ['http:', 'https:']);
      return origin ? new URL(origin).origin : entry;
    });

  const secret = (name: string): string | undefined => {
    const value = read(name);
    if (value !== undefined && value.length < 32) problems.push(`${name} must be at least 32 characters`);
    if (value === undefined && production) problems.push(`${name} is required when NODE_ENV=production`);
    return value;
  };
  const jwtSecret = secret('JWT_SECRET');
  const callbackSigningSecret = secret('CALLBACK_SIGNING_SECRET');

  const logLevel = read('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);

  const trustedProxies = (read('TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const proxy of trustedProxies) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(proxy))
      problems.push(`TRUSTED_PROXIES entry "${proxy}" is not an IP address or CIDR`);
  }

  const rateLimit = {
    max: integer('RATE_LIMIT_MAX', 6000, 1, 10_000_000),
    windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    signInMax: integer('SIGNIN_RATE_LIMIT_MAX', 20, 1, 10_000_000),
  };
  const redisUrl = url('REDIS_URL', read('REDIS_URL'), ['redis:', 'rediss:']);

  const cardEncryptionKeys = read('CARD_ENCRYPTION_KEYS');
  if (cardEncryptionKeys !== undefined) {
    const valid = cardEncryptionKeys.split(',').every((entry) => {
      const [id, key] = entry.trim().split(':');
      return /^[A-Za-z0-9_-]{1,32}$/.test(id ?? '') && Buffer.from(key ?? '', 'base64').length === 32;
    });
    if (!valid)
      problems.push('CARD_ENCRYPTION_KEYS must be "<id>:<base64 of 32 bytes>[,<id>:<key>…]" (first is current)');
  } else if (production) {
    problems.push('CARD_ENCRYPTION_KEYS is required when NODE_ENV=production');
  }
  const cardFingerprintSecret = secret('CARD_FINGERPRINT_SECRET');
  const idempotencyFingerprintSecret = secret('IDEMPOTENCY_FINGERPRINT_SECRET');
  const sandboxUrl = url('SANDBOX_URL', read('SANDBOX_URL'), ['http:', 'https:']);
  const sandboxLatencyMs = integer('SANDBOX_LATENCY_MS', 0, 0, 60_000);
  const processorTimeoutMs = integer('PROCESSOR_TIMEOUT_MS', 8000, 50, 60_000);
  const stripeApiBase = url('STRIPE_API_BASE', read('STRIPE_API_BASE'), ['http:', 'https:']);
  if (stripeApiBase && !/^https?:\/\/[^/?#]+\/?$/.test(stripeApiBase))
    problems.push('STRIPE_API_BASE takes a scheme, host and port only (no path)');
  const adyenApiBase = url('ADYEN_CHECKOUT_API_BASE', read('ADYEN_CHECKOUT_API_BASE'), ['https:']);
  const adyenInsecureTls = flag('ADYEN_CHECKOUT_INSECURE_TLS') ?? false;
  if (adyenInsecureTls && !(adyenApiBase && isLoopbackUrl(adyenApiBase)))
    problems.push('ADYEN_CHECKOUT_INSECURE_TLS is only for a loopback ADYEN_CHECKOUT_API_BASE (a local test server)');
  const processorCircuit = {
    failures: integer('PROCESSOR_CIRCUIT_FAILURES', 5, 1, 1000),
    coolDownSeconds: integer('PROCESSOR_CIRCUIT_COOLDOWN_SECONDS', 30, 1, 3600),
  };
  const threeDsChallengeTtlSeconds = integer('THREEDS_CHALLENGE_TTL_SECONDS', 600, 30, 86_400);
  const upiCollectTtlSeconds = integer('UPI_COLLECT_TTL_SECONDS', 300, 30, 86_400);

  const seedDemo = flag('SEED_DEMO');
  const allowPrivateTargets = flag('WEBHOOK_ALLOW_PRIVATE_TARGETS');
  const webhookTimeoutMs = integer('WEBHOOK_TIMEOUT_MS', 30_000, 100, 60_000);
  const jobRetentionDays = integer('JOB_RETENTION_DAYS', 7, 1, 3650);
  const apiKeyCacheRaw = read('API_KEY_CACHE');
  if (apiKeyCacheRaw !== undefined && apiKeyCacheRaw !== 'true' && apiKeyCacheRaw !== 'false') {
    problems.push(`API_KEY_CACHE must be "true" or "false" (got "${apiKeyCacheRaw}")`);
  }
  const smtpUrl = url('SMTP_URL', read('SMTP_URL'), ['smtp:', 'smtps:']);

  const metricsToken = read('METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7e]{32,}$/.test(metricsToken))
    problems.push('METRICS_TOKEN must be at least 32 printable characters without spaces');
  const databaseListenUrl = url('DATABASE_LISTEN_URL', read('DATABASE_LISTEN_URL'), ['postgres:', 'postgresql:']);
  if (databaseListenUrl && !databaseUrl) problems.push('DATABASE_LISTEN_URL is only used with DATABASE_URL');
  const prepared = flag('DATABASE_PREPARED_STATEMENTS');
  const groupCommit = flag('DATABASE_GROUP_COMMIT');
  const workersRaw = read('WORKERS');
  const workers = workersRaw === 'auto' ? availableParallelism() : integer('WORKERS', 1, 1, 256);

  if (production && seedDemo === true) problems.push('SEED_DEMO=true is not allowed when NODE_ENV=production');

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    env: production ? 'production' : 'development',
    port,
    host,
    dataDir,
    databaseUrl,
    databaseListenUrl,
    preparedStatements: prepared ?? databaseListenUrl === undefined,
    groupCommit: groupCommit ?? true,
    publicUrl,
    publicUrlGiven: read('PUBLIC_URL') !== undefined,
    checkoutUrl,
    checkoutFrameAncestors,
    tls,
    jwtSecret,
    callbackSigningSecret,
    trustedProxies,
    logLevel,
    rateLimit,
    redisUrl,
    seedDemo: !production && seedDemo !== false,
    cardEncryptionKeys,
    cardFingerprintSecret,
    idempotencyFingerprintSecret,
    sandboxUrl,
    sandboxLatencyMs,
    processorTimeoutMs,
    processorApis: { stripeApiBase, adyenApiBase, adyenUnverifiedTls: adyenInsecureTls },
    processorCircuit,
    threeDsChallengeTtlSeconds,
    upiCollectTtlSeconds,
    webhookAllowPrivateTargets: allowPrivateTargets ?? !production,
    apiKeyCache: apiKeyCacheRaw !== 'false',
    webhookTimeoutMs,
    smtpUrl,
    workers,
    metricsToken,
    jobRetentionDays,
  };
}

/** A URL whose host is this machine (127.0.0.0/8, ::1, localhost). */
function isLoopbackUrl(value: string): boolean {
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
