import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { buildOnce, run, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';

// Development keeps the card encryption key in the store it protects; a store that issued a live key is refused.
const SLOW = { timeout: 180_000 };
const scratch: string[] = [];
const running: GatewayProcess[] = [];

beforeAll(() => buildOnce());
afterAll(() => {
  for (const gateway of running) if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function freshStore(): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-devsecrets-'));
  scratch.push(dir);
  const databaseUrl = await freshDatabaseUrl();
  return { DATA_DIR: dir, DATABASE_URL: databaseUrl };
}

async function start(env: Record<string, string>): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({ PORT: '0', NODE_ENV: 'development', ...env });
  running.push(gateway);
  return gateway;
}

async function stop(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited, `stderr:\n${gateway.stderr()}\nstdout tail:\n${gateway.stdout().slice(-2000)}`).toBe(0);
}

/** Everything a start could write: secrets, merchants, users, keys. */
async function snapshot(store: Record<string, string>) {
  const storage = await openStorage({ databaseUrl: store.DATABASE_URL });
  try {
    const { db } = storage;
    return {
      secrets: await db.selectFrom('system_secrets').select(['name', 'value']).orderBy('name').execute(),
      merchants: await db.selectFrom('merchants').select(['id', 'name']).orderBy('id').execute(),
      users: await db.selectFrom('users').select(['id', 'email']).orderBy('id').execute(),
      keys: await db.selectFrom('api_keys').select(['id', 'mode', 'key_hash', 'revoked_at']).orderBy('id').execute(),
    };
  } finally {
    await storage.close();
  }
}

describe('development secrets', () => {
  it(
    'says loudly in the banner that the card key lives in the store, and nothing of it with keys from the environment',
    SLOW,
    async () => {
      const dev = await start(await freshStore());
      expect(dev.stderr()).toMatch(/DEVELOPMENT SECRETS: the card encryption key is kept in this store/);
      expect(dev.stderr()).toMatch(/dump or backup of this store decrypts them/);
      await stop(dev);

      const { CARD_ENCRYPTION_KEYS, CARD_FINGERPRINT_SECRET } = PRODUCTION_SECRETS;
      const keyed = await start({ ...(await freshStore()), CARD_ENCRYPTION_KEYS, CARD_FINGERPRINT_SECRET });
      expect(keyed.stderr()).toContain('listening on');
      expect(keyed.stderr()).not.toMatch(/DEVELOPMENT SECRETS/);
      await stop(keyed);
    },
  );

  it('refuses to start, changing nothing, once a live key was issued on such a store', SLOW, async () => {
    const store = await freshStore();
    const first = await start(store);
    const demo = first.banner.demo!;
    const login = await fetch(`${first.banner.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.email, password: demo.password }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const issued = await fetch(`${first.banner.url}/users/${demo.userId}/apikey?mode=live`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(await issued.json()).toMatch(/^svc_live_sk_/);
    await stop(first);
    const before = await snapshot(store);

    const refused = await run(process.execPath, ['dist/src/main.js'], { PORT: '0', NODE_ENV: 'development', ...store });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/failed to start: .*svc_live_sk_/);
    expect(refused.stderr).toMatch(/CARD_ENCRYPTION_KEYS/);
    expect(refused.stderr).not.toMatch(/listening on/);
    expect(refused.stderr).not.toMatch(/\bat .*\.js:\d+/); // a message, not a stack trace
    expect(await snapshot(store)).toEqual(before);
  });
});
