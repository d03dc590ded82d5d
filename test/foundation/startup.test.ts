import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMerchants } from '../../src/modules/merchants/repository.js';
import { openStorage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { knock } from '../helpers/lifecycle.js';
import { buildOnce, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';

// `npm start` is the build (when stale) then scripts/gateway.sh: these tests build once and run the latter.
const SLOW = { timeout: 180_000 };
const scratch: string[] = [];
const running: GatewayProcess[] = [];

/** A fresh database of the suite's server (the embedded server's own start: embedded-server.test.ts). */
async function freshStore(): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-start-'));
  scratch.push(dir);
  return { DATA_DIR: dir, DATABASE_URL: await freshDatabaseUrl() };
}

async function start(env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({ PORT: '0', ...env });
  running.push(gateway);
  return gateway;
}

async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** What a stopped gateway left in its store: merchant count and persisted secrets. */
async function inspect(store: Record<string, string>): Promise<{ merchants: number; secrets: Record<string, string> }> {
  const storage = await openStorage({ databaseUrl: store.DATABASE_URL });
  try {
    const rows = await storage.db.selectFrom('system_secrets').select(['name', 'value']).execute();
    return {
      merchants: await countMerchants(storage.db),
      secrets: Object.fromEntries(rows.map((r) => [r.name, r.value])),
    };
  } finally {
    await storage.close();
  }
}

beforeAll(() => buildOnce());
afterAll(async () => {
  for (const gateway of running) if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('npm start in development', () => {
  let store: Record<string, string>;
  let first: GatewayProcess;
  let accessToken: string;
  let secretsAfterFirstRun: Record<string, string>;

  it('creates a demo merchant on a fresh store and prints its credentials to stderr', SLOW, async () => {
    store = await freshStore();
    first = await start({ NODE_ENV: 'development', ...store });
    const demo = first.banner.demo!;
    expect(demo).toMatchObject({ email: 'demo@example.com', userId: expect.any(Number) });
    expect(demo.password.length).toBeGreaterThanOrEqual(12);
    expect(demo.apiKey).toMatch(/^svc_test_sk_[0-9A-Za-z]{32,}$/);
    expect(first.banner.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The secrets go to the terminal, never into the log stream on stdout.
    expect(first.stdout()).not.toContain(demo.password);
    expect(first.stdout()).not.toContain(demo.apiKey);

    const ping = await call(`${first.banner.url}/ping`, { headers: { 'x-api-key': demo.apiKey } });
    expect(ping.status).toBe(200);
    expect(ping.body.status).toBe('ok');
    const login = await call(`${first.banner.url}/auth/login`, json({ email: demo.email, password: demo.password }));
    expect(login.status).toBe(200);
    accessToken = login.body.accessToken;

    // The process answering is node itself (the start script execs it), with the memory settings that
    // keep an idle gateway small (docs/performance.md, "Idle memory").
    const pid = first.child.pid!;
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(args).toContain('dist/src/main.js');
    expect(args).toContain('--expose-gc');
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=32768');
  });

  it('on SIGTERM stops accepting, finishes the in-flight request, closes storage and exits 0', SLOW, async () => {
    const demo = first.banner.demo!;
    const body = JSON.stringify({ email: demo.email, password: demo.password });
    // Expect: 100-continue lets us know the gateway has taken the request before the body is sent,
    // so the request is provably in flight (and its argon2 check still to come) when SIGTERM arrives.
    const request = http.request(`${first.banner.url}/auth/login`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      request.on('error', reject);
    });
    await once(request, 'continue');

    first.child.kill('SIGTERM');
    await first.waitForLog('"msg":"shutting down"');
    expect([503, 'ECONNREFUSED', 'ECONNRESET']).toContain(await knock(first.banner.url));

    request.end(body);
    const finished = await response;
    expect(finished.status).toBe(200);
    expect(finished.body.accessToken).toMatch(/^eyJ/);
    expect(await first.exited).toBe(0);

    // Storage was closed: the store opens again, holding the generated development secrets.
    const after = await inspect(store);
    expect(after.merchants).toBe(1);
    expect(Object.keys(after.secrets).sort()).toEqual([
      'callback_signing_secret',
      'card_encryption_keys',
      'card_fingerprint_secret',
      'idempotency_fingerprint_secret',
      'jwt_secret',
    ]);
    for (const name of [
      'callback_signing_secret',
      'card_fingerprint_secret',
      'idempotency_fingerprint_secret',
      'jwt_secret',
    ])
      expect(after.secrets[name]).toMatch(/^[0-9A-Za-z]{48}$/);
    // "<key id>:<base64 of 32 bytes>": the card vault's generated development key.
    expect(Buffer.from(after.secrets.card_encryption_keys.split(':')[1], 'base64')).toHaveLength(32);
    secretsAfterFirstRun = after.secrets;
  });

  it('on restart prints no demo again and keeps the generated development secrets', SLOW, async () => {
    const second = await start({ NODE_ENV: 'development', ...store });
    expect(second.banner.demo).toBeUndefined();
    expect(second.stderr()).not.toContain('Demo merchant');

    const demo = first.banner.demo!;
    // The demo key and the access token issued before the restart still work: the JWT secret was persisted.
    expect((await call(`${second.banner.url}/ping`, { headers: { 'x-api-key': demo.apiKey } })).status).toBe(200);
    const rotated = await call(`${second.banner.url}/users/${demo.userId}/apikey`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatch(/^svc_test_sk_/);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await inspect(store)).toEqual({ merchants: 1, secrets: secretsAfterFirstRun });
  });
});

describe('npm start in production', () => {
  it('creates no demo merchant and refuses plain HTTP except health checks', SLOW, async () => {
    const store = await freshStore();
    const gateway = await start({
      NODE_ENV: 'production',
      ...PRODUCTION_SECRETS,
      ...store,
    });
    expect(gateway.banner.demo).toBeUndefined();
    expect(gateway.stderr()).toContain('svc-gateway production listening on');

    const url = gateway.banner.url;
    expect((await call(`${url}/healthz`)).status).toBe(200);
    expect((await call(`${url}/readyz`)).status).toBe(200);
    const refused = await call(`${url}/ping`, { headers: { 'x-api-key': `svc_test_sk_${'a'.repeat(40)}` } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'HTTPS_REQUIRED', code: 'HTTPS_REQUIRED' });
    expect(refused.body.message).toMatch(/HTTPS/);
    // Without TRUSTED_PROXIES nobody may claim the request came over TLS.
    const claimed = await call(`${url}/ping`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(claimed.status).toBe(403);
    expect(claimed.body.error).toBe('HTTPS_REQUIRED');
    expect(claimed.headers.get('strict-transport-security')).toBeNull();

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    // Production secrets come from the environment only: nothing generated, nothing stored.
    expect(await inspect(store)).toEqual({ merchants: 0, secrets: {} });
  });
});
