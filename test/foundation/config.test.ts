import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { buildOnce, run } from '../helpers/processes.js';
import { selfSignedCertificate } from '../helpers/tls.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';

const SECRET_A = 'a'.repeat(32);
const SECRET_B = 'b'.repeat(40);
const { CARD_ENCRYPTION_KEYS, CARD_FINGERPRINT_SECRET, IDEMPOTENCY_FINGERPRINT_SECRET } = PRODUCTION_SECRETS;
/** The secrets that protect stored data (production requires them too). */
const DATA_SECRETS = { CARD_ENCRYPTION_KEYS, CARD_FINGERPRINT_SECRET, IDEMPOTENCY_FINGERPRINT_SECRET };

let scratch: string;
let tls: ReturnType<typeof selfSignedCertificate>;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'svc-gateway-config-'));
  tls = selfSignedCertificate();
  buildOnce();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(tls.dir, { recursive: true, force: true });
});

/** The problems loadConfig reports for an environment (empty when it is valid). */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('loadConfig', () => {
  it('has working defaults for development', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      publicUrl: 'http://localhost:8080',
      tls: undefined,
      jwtSecret: undefined,
      callbackSigningSecret: undefined,
      seedDemo: true,
    });
  });

  it('derives PUBLIC_URL from PORT and TLS, and trims a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PORT: '9443', TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile }).publicUrl).toBe(
      'https://localhost:9443',
    );
    expect(loadConfig({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe('https://pay.example.com');
  });

  it('accepts every documented form of a valid value', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '::',
      DATA_DIR: 'memory://',
      DATABASE_URL: 'postgresql://user:pw@db.internal:5432/gateway',
      NODE_ENV: 'production',
      JWT_SECRET: SECRET_A,
      CALLBACK_SIGNING_SECRET: SECRET_B,
      ...DATA_SECRETS,
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
    });
    expect(config).toMatchObject({
      port: 0,
      host: '::',
      dataDir: 'memory://',
      env: 'production',
      jwtSecret: SECRET_A,
      callbackSigningSecret: SECRET_B,
    });
    expect(config.tls?.cert.toString()).toContain('BEGIN CERTIFICATE');
    expect(loadConfig({ HOST: 'gateway-1.internal' }).host).toBe('gateway-1.internal');
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).databaseUrl).toBe('postgres://localhost/x');
  });

  it('requires every secret in production and never seeds a demo there', () => {
    const missing = problems({ NODE_ENV: 'production' });
    expect(missing).toHaveLength(5);
    for (const name of [
      'JWT_SECRET',
      'CALLBACK_SIGNING_SECRET',
      'CARD_ENCRYPTION_KEYS',
      'CARD_FINGERPRINT_SECRET',
      'IDEMPOTENCY_FINGERPRINT_SECRET',
    ]) {
      expect(missing.join('\n')).toContain(`${name} is required`);
    }
    const all = { NODE_ENV: 'production', JWT_SECRET: SECRET_A, CALLBACK_SIGNING_SECRET: SECRET_B, ...DATA_SECRETS };
    expect(loadConfig(all).seedDemo).toBe(false);
    expect(problems({ ...all, SEED_DEMO: 'true' }).join()).toMatch(/SEED_DEMO/);
  });

  it('rejects card encryption keys that are not <id>:<base64 of 32 bytes>', () => {
    expect(problems({ CARD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(16).toString('base64')}` }).join()).toMatch(
      /CARD_ENCRYPTION_KEYS/,
    );
    expect(problems({ CARD_ENCRYPTION_KEYS: 'no-colon' }).join()).toMatch(/CARD_ENCRYPTION_KEYS/);
    expect(
      problems({
        CARD_ENCRYPTION_KEYS: `${CARD_ENCRYPTION_KEYS},old:${Buffer.alloc(32, 1).toString('base64')}`,
      }),
    ).toEqual([]);
  });

  it('rejects secrets shorter than 32 characters, in development too', () => {
    expect(problems({ JWT_SECRET: 'short' })).toEqual(['JWT_SECRET must be at least 32 characters']);
    expect(problems({ CALLBACK_SIGNING_SECRET: 'x'.repeat(31) })).toEqual([
      'CALLBACK_SIGNING_SECRET must be at least 32 characters',
    ]);
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['HOST', 'not a host!'],
    ['NODE_ENV', 'staging'],
    ['NODE_ENV', 'test'],
    ['DATABASE_URL', 'mysql://db/gateway'],
    ['DATABASE_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://example.com'],
    ['PUBLIC_URL', 'localhost:8080'],
    ['TLS_CERT_FILE', '/nonexistent/cert.pem'],
    ['LOG_LEVEL', 'loud'],
    ['TRUSTED_PROXIES', 'proxy.internal'],
    ['SEED_DEMO', 'yes'],
  ])('names %s when it is %j', (name, value) => {
    const env: Record<string, string> = { [name]: value };
    if (name === 'TLS_CERT_FILE') env.TLS_KEY_FILE = tls.keyFile;
    const found = problems(env);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(name);
  });

  it('names DATA_DIR when it is a file, and TLS_CERT_FILE when it is set alone or holds no certificate', () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'x');
    expect(problems({ DATA_DIR: file })).toEqual([expect.stringContaining('DATA_DIR')]);
    expect(problems({ TLS_CERT_FILE: tls.certFile })).toEqual([
      expect.stringContaining('TLS_CERT_FILE and TLS_KEY_FILE'),
    ]);
    expect(problems({ TLS_CERT_FILE: file, TLS_KEY_FILE: tls.keyFile })).toEqual([
      expect.stringContaining('TLS_CERT_FILE'),
    ]);
  });

  it('runs one process by default, WORKERS=auto one per core, on the embedded server or a server of its own', () => {
    expect(loadConfig({}).workers).toBe(1);
    const server = { DATABASE_URL: 'postgres://localhost/x' };
    expect(loadConfig({ ...server, WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ WORKERS: '2' }).workers).toBe(2);
    expect(loadConfig({ ...server, WORKERS: 'auto' }).workers).toBe(availableParallelism());
    expect(problems({ WORKERS: '0' }).join()).toMatch(/WORKERS must be an integer from 1 to 256/);
  });

  it('takes a direct address for LISTEN beside a pooled DATABASE_URL, and only with one', () => {
    const pooled = { DATABASE_URL: 'postgres://bouncer:6432/gw', DATABASE_LISTEN_URL: 'postgres://db:5432/gw' };
    expect(loadConfig(pooled).databaseListenUrl).toBe('postgres://db:5432/gw');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/gw' }).databaseListenUrl).toBeUndefined();
    expect(problems({ DATABASE_LISTEN_URL: 'postgres://db:5432/gw' }).join()).toMatch(/only used with DATABASE_URL/);
    expect(problems({ ...pooled, DATABASE_LISTEN_URL: 'redis://x' }).join()).toMatch(/DATABASE_LISTEN_URL/);
  });

  it('names the hot statements on a server, not behind a transaction pooler, unless told', () => {
    const direct = { DATABASE_URL: 'postgres://db/gw' };
    const pooled = { DATABASE_URL: 'postgres://bouncer:6432/gw', DATABASE_LISTEN_URL: 'postgres://db:5432/gw' };
    expect(loadConfig(direct).preparedStatements).toBe(true);
    expect(loadConfig(pooled).preparedStatements).toBe(false);
    expect(loadConfig({ ...direct, DATABASE_PREPARED_STATEMENTS: 'false' }).preparedStatements).toBe(false);
    expect(loadConfig({ ...pooled, DATABASE_PREPARED_STATEMENTS: 'true' }).preparedStatements).toBe(true);
    expect(problems({ ...direct, DATABASE_PREPARED_STATEMENTS: 'yes' }).join()).toMatch(
      /DATABASE_PREPARED_STATEMENTS must be "true" or "false"/,
    );
  });

  it('groups concurrent payment statements into one unless told not to, on either store', () => {
    expect(loadConfig({}).groupCommit).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/gw' }).groupCommit).toBe(true);
    expect(loadConfig({ DATABASE_GROUP_COMMIT: 'false' }).groupCommit).toBe(false);
    expect(problems({ DATABASE_GROUP_COMMIT: 'on' }).join()).toMatch(/DATABASE_GROUP_COMMIT must be "true" or "false"/);
  });

  it('keeps completed jobs 7 days unless told otherwise, from 1 day to 10 years', () => {
    expect(loadConfig({}).jobRetentionDays).toBe(7);
    expect(loadConfig({ JOB_RETENTION_DAYS: '30' }).jobRetentionDays).toBe(30);
    for (const bad of ['0', '3651', '1.5', 'week'])
      expect(problems({ JOB_RETENTION_DAYS: bad }).join()).toMatch(
        /JOB_RETENTION_DAYS must be an integer from 1 to 3650/,
      );
  });

  it('reports every bad value at once', () => {
    const found = problems({ PORT: 'x', NODE_ENV: 'staging', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short' });
    expect(found).toHaveLength(4);
    for (const name of ['PORT', 'NODE_ENV', 'DATABASE_URL', 'JWT_SECRET'])
      expect(found.some((p) => p.startsWith(name))).toBe(true);
  });
});

describe('node dist/src/main.js with a bad environment', () => {
  const start = (env: Record<string, string>) => run(process.execPath, ['dist/src/main.js'], env);

  it('exits non-zero and names every bad variable on stderr', async () => {
    const file = path.join(scratch, 'not-a-dir');
    writeFileSync(file, 'x');
    const result = await start({
      PORT: 'eighty',
      HOST: 'bad host',
      NODE_ENV: 'staging',
      DATA_DIR: file,
      DATABASE_URL: 'mysql://db/x',
      PUBLIC_URL: 'nope',
      TLS_CERT_FILE: tls.certFile,
      JWT_SECRET: 'short',
      CALLBACK_SIGNING_SECRET: 'short',
    });
    expect(result.code).not.toBe(0);
    for (const name of [
      'PORT',
      'HOST',
      'NODE_ENV',
      'DATA_DIR',
      'DATABASE_URL',
      'PUBLIC_URL',
      'TLS_CERT_FILE',
      'JWT_SECRET',
      'CALLBACK_SIGNING_SECRET',
    ]) {
      expect(result.stderr).toContain(name);
    }
    expect(result.stderr).toMatch(/^Invalid configuration:/);
    expect(result.stdout).toBe('');
  });

  it('refuses production without JWT_SECRET and CALLBACK_SIGNING_SECRET', async () => {
    const result = await start({ NODE_ENV: 'production', DATA_DIR: 'memory://' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('JWT_SECRET is required when NODE_ENV=production');
    expect(result.stderr).toContain('CALLBACK_SIGNING_SECRET is required when NODE_ENV=production');
  });

  it('names DATABASE_URL when the server cannot be reached, without printing the URL (it may hold a password)', async () => {
    const result = await start({ DATABASE_URL: 'postgres://admin:hunter2-secret@127.0.0.1:1/gateway', PORT: '0' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).not.toContain('hunter2-secret');
  });

  it('names PORT when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const databaseUrl = await freshDatabaseUrl();
      const result = await start({
        PORT: String(port),
        DATA_DIR: 'memory://',
        SEED_DEMO: 'false',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(new RegExp(`PORT.*${port}`));
      expect(result.stderr).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });
});
