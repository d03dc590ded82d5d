import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/db.js';
import { freshDatabaseUrl, storageKind } from '../helpers/database.js';
import { buildOnce, gatewayCli, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

// The CLI is run exactly as documented: `npm run --silent gateway -- merchant create …` (it builds, then runs dist/src/cli.js).
const SLOW = { timeout: 180_000 };
const PASSWORD = 'a long enough password';

let dataDir: string;
let store: Record<string, string>;
let gateway: GatewayProcess | undefined;
const created: Array<{ merchantId: number; userId: number; email: string }> = [];

beforeAll(async () => {
  buildOnce();
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-cli-'));
  const databaseUrl = await freshDatabaseUrl();
  store = { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
});
afterAll(() => {
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const createMerchant = (email: string, password: string, name: string) =>
  gatewayCli(['merchant', 'create', '--email', email, '--password', password, '--name', name], store);

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
    storageKind() === 'postgres'
      ? 'works on PostgreSQL while a gateway is running, and the gateway sees the new merchant at once'
      : 'refuses clearly while a gateway holds the same embedded store',
    SLOW,
    async () => {
      gateway = await startGatewayProcess({ NODE_ENV: 'development', PORT: '0', ...store });
      expect(gateway.banner.demo).toBeUndefined();
      // The merchant the CLI created is a real account.
      expect(await login('owner@shop.example', PASSWORD)).toBe(200);

      const result = await createMerchant('second@shop.example', PASSWORD, 'Second Shop');
      if (storageKind() === 'postgres') {
        expect(result.code).toBe(0);
        created.push(JSON.parse(result.stdout));
        expect(await login('second@shop.example', PASSWORD)).toBe(200);
      } else {
        expect(result.code).not.toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(`is in use by process ${gateway.child.pid}`);
        expect(result.stderr).toContain('DATABASE_URL');
        expect(await login('second@shop.example', PASSWORD)).toBe(401);
      }

      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
    },
  );

  it('leaves exactly the accounts it reported', SLOW, async () => {
    const storage = await openStorage({ databaseUrl: store.DATABASE_URL, dataDir: store.DATA_DIR });
    try {
      const users = await storage.db.selectFrom('users').select(['id', 'merchant_id', 'email']).orderBy('id').execute();
      expect(users.map((u) => ({ merchantId: u.merchant_id, userId: u.id, email: u.email }))).toEqual(created);
      const merchants = await storage.db.selectFrom('merchants').select('id').execute();
      expect(merchants).toHaveLength(created.length);
    } finally {
      await storage.close();
    }
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
    const storage = await openStorage({ databaseUrl: store.DATABASE_URL, dataDir: store.DATA_DIR });
    try {
      const row = await storage.db
        .selectFrom('merchants')
        .select('status')
        .where('id', '=', merchantId)
        .executeTakeFirst();
      expect(row?.status).toBe('suspended');
    } finally {
      await storage.close();
    }
    expect(JSON.parse((await setStatus(String(merchantId), 'active')).stdout)).toEqual({
      merchantId,
      status: 'active',
    });
  });

  it('refuses an unknown status, an unknown merchant and a malformed id, changing nothing', SLOW, async () => {
    const { merchantId } = created[0];
    // One after another: the embedded store admits one process at a time.
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
