import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { startEmbeddedServer } from '../../src/storage/embedded-server.js';
import { buildOnce, gatewayCli, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

// The CLI is run exactly as documented: `npm run --silent gateway -- merchant create …` (it builds, then runs
// dist/src/cli.js), on the default store: the embedded PostgreSQL server of DATA_DIR, without DATABASE_URL.
const SLOW = { timeout: 180_000 };
const PASSWORD = 'a long enough password';

let dataDir: string;
let store: Record<string, string>;
let gateway: GatewayProcess | undefined;
const created: Array<{ merchantId: number; userId: number; email: string }> = [];

beforeAll(() => {
  buildOnce();
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-cli-'));
  store = { DATA_DIR: dataDir };
});
afterAll(() => {
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const createMerchant = (email: string, password: string, name: string) =>
  gatewayCli(['merchant', 'create', '--email', email, '--password', password, '--name', name], store);

/** The server is running on the data directory (PostgreSQL's own postmaster.pid is there while it runs). */
const serverRunning = () => existsSync(path.join(dataDir, 'postgresql', 'postmaster.pid'));

/** Reads the data directory as the CLI does: through its server, started for the call when it is not running. */
async function onStore<T>(read: (storage: Storage) => Promise<T>): Promise<T> {
  const server = await startEmbeddedServer(dataDir, { role: 'tool' });
  const storage = await openStorage({ databaseUrl: server.url });
  try {
    return await read(storage);
  } finally {
    await storage.close();
    await server.stop();
  }
}

async function login(email: string, password: string): Promise<number> {
  const response = await fetch(`${gateway!.banner.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  await response.text();
  return response.status;
}

describe('gateway merchant create', () => {
  it('prints exactly one JSON object with merchantId, userId and email', SLOW, async () => {
    const result = await createMerchant('Owner@Shop.example', PASSWORD, 'The Shop');
    // No gateway runs: the CLI started the data directory's server for its call, and stopped it.
    expect(serverRunning()).toBe(false);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const output = JSON.parse(lines[0]);
    expect(Object.keys(output).sort()).toEqual(['email', 'merchantId', 'userId']);
    expect(output).toEqual({ merchantId: expect.any(Number), userId: expect.any(Number), email: 'owner@shop.example' });
    created.push(output);
  });

  it('refuses bad input with a message on stderr, a non-zero exit and nothing on stdout', SLOW, async () => {
    const [badEmail, shortPassword, missingName, taken] = await Promise.all([
      createMerchant('not-an-email', PASSWORD, 'Shop'),
      createMerchant('short@shop.example', 'elevenchars', 'Shop'),
      gatewayCli(['merchant', 'create', '--email', 'nameless@shop.example', '--password', PASSWORD], store),
      createMerchant('OWNER@shop.example', 'another long password', 'Impostor'),
    ]);
    expect(badEmail.stderr).toMatch(/email must be a valid e-mail address/);
    expect(shortPassword.stderr).toMatch(/password must be at least 12 characters/);
    expect(missingName.stderr).toMatch(/missing --name/);
    expect(taken.stderr).toMatch(/owner@shop\.example already exists/);
    for (const result of [badEmail, shortPassword, missingName, taken]) {
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
    }
  });

  it(
    'works through the running gateway’s server: the gateway sees the change at once and keeps its server',
    SLOW,
    async () => {
      gateway = await startGatewayProcess({ NODE_ENV: 'development', PORT: '0', ...store });
      expect(gateway.banner.demo).toBeUndefined();
      // The merchant the CLI created is a real account.
      expect(await login('owner@shop.example', PASSWORD)).toBe(200);

      const result = await createMerchant('second@shop.example', PASSWORD, 'Second Shop');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      created.push(JSON.parse(result.stdout));
      expect(await login('second@shop.example', PASSWORD)).toBe(200);
      // The CLI used the server; it is the gateway's to stop.
      expect(serverRunning()).toBe(true);
      expect(await login('owner@shop.example', PASSWORD)).toBe(200);

      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      expect(serverRunning()).toBe(false);
    },
  );

  it('leaves exactly the accounts it reported', SLOW, async () => {
    await onStore(async (storage) => {
      const users = await storage.db.selectFrom('users').select(['id', 'merchant_id', 'email']).orderBy('id').execute();
      expect(users.map((u) => ({ merchantId: u.merchant_id, userId: u.id, email: u.email }))).toEqual(created);
      const merchants = await storage.db.selectFrom('merchants').select('id').execute();
      expect(merchants).toHaveLength(created.length);
    });
  });
});

describe('gateway merchant status', () => {
  const setStatus = (id: string, status: string) =>
    gatewayCli(['merchant', 'status', '--id', id, '--status', status], store);

  it('suspends and reactivates an account, and says so as one JSON object', SLOW, async () => {
    const { merchantId } = created[0];
    const suspended = await setStatus(String(merchantId), 'suspended');
    expect(suspended.code).toBe(0);
    expect(JSON.parse(suspended.stdout)).toEqual({ merchantId, status: 'suspended' });
    const row = await onStore((storage) =>
      storage.db.selectFrom('merchants').select('status').where('id', '=', merchantId).executeTakeFirst(),
    );
    expect(row?.status).toBe('suspended');
    expect(JSON.parse((await setStatus(String(merchantId), 'active')).stdout)).toEqual({
      merchantId,
      status: 'active',
    });
  });

  it('refuses an unknown status, an unknown merchant and a malformed id, changing nothing', SLOW, async () => {
    const { merchantId } = created[0];
    // One after another: each call starts the data directory's server for itself and stops it after.
    const badStatus = await setStatus(String(merchantId), 'frozen');
    const unknown = await setStatus('999999', 'suspended');
    const malformed = await setStatus('1e3', 'suspended');
    expect(badStatus.stderr).toMatch(/status must be one of active, restricted, suspended/);
    expect(unknown.stderr).toMatch(/merchant 999999 not found/);
    expect(malformed.stderr).toMatch(/--id must be a merchant id/);
    for (const result of [badStatus, unknown, malformed]) {
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
    }
  });
});
