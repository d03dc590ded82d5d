import { sql } from 'kysely';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyCache, verifyApiKey, type KeyCache } from '../../src/modules/api-keys/index.js';
import { setMerchantStatus } from '../../src/modules/merchants/index.js';
import { startHeartbeat, type Heartbeat } from '../../src/modules/instances/index.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { startTestGateway, type CallResult, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { session, type Signed } from '../team/fixtures.js';

/**
 * The exact API-key cache (src/modules/api-keys/key-cache.ts): keys are answered from memory, and once
 * a rotation, a suspension, or the demotion to viewer or removal of the key's user has answered, no
 * instance accepts the old key. The second instance is a second gateway on the same database, as in
 * production.
 */
let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  a = await startTestGateway();
  b = await startTestGateway({ env: { DATABASE_URL: a.config.databaseUrl! } });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const stats = (gw: TestGateway) => gw.gateway.app.ctx.keyCache.stats();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function signIn(gw: TestGateway, m: TestMerchant): Promise<string> {
  const res = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status, res.text).toBe(200);
  return res.body.accessToken as string;
}

/** The key answered from the cache of `gw`: a ping, then another that must be a hit. */
async function warm(gw: TestGateway, apiKey: string): Promise<void> {
  await until(() => stats(gw).usable, 'a usable cache');
  expect((await gw.call('GET', '/ping', { apiKey })).status).toBe(200);
  const hits = stats(gw).hits;
  expect((await gw.call('GET', '/ping', { apiKey })).status).toBe(200);
  expect(stats(gw).hits).toBe(hits + 1);
}

/** Requests with `apiKey` on `gw` from `workers` loops until stopped: when each was sent, and its status. */
function load(gw: TestGateway, apiKey: string, workers = 4) {
  const answers: Array<{ sentAt: number; status: number }> = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const sentAt = performance.now();
      const { status } = await gw.call('GET', '/ping', { apiKey });
      answers.push({ sentAt, status });
    }
  });
  return {
    answers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** A developer of `m` (their test key) and the merchant's owner, signed in to the panel through `gw`. */
async function developerKey(gw: TestGateway, m: TestMerchant) {
  const dev = await teammate(gw, m, 'developer');
  const rotated = await gw.call('PUT', `/users/${dev.userId}/apikey`, await session(gw, dev.email));
  expect(rotated.status, rotated.text).toBe(200);
  return { userId: dev.userId, key: rotated.body as string, owner: await session(gw, m.email) };
}

/** What takes a user's keys away, through the team API (docs/decisions.md "Team"). */
const takingKeysAway: Record<string, (gw: TestGateway, owner: Signed, userId: number) => Promise<CallResult>> = {
  'demoted to viewer': (gw, owner, userId) =>
    gw.call('PATCH', `/team/members/${userId}`, { ...owner, body: { role: 'viewer' } }),
  'removed from the team': (gw, owner, userId) => gw.call('DELETE', `/team/members/${userId}`, owner),
};

describe('the key cache', () => {
  it('answers a known key from memory, and never caches an unknown one', async () => {
    const m = await a.merchant();
    await warm(a, m.apiKey);
    const unknown = 'svc_test_sk_' + 'x'.repeat(40);
    const entries = stats(a).entries;
    expect((await a.call('GET', '/ping', { apiKey: unknown })).status).toBe(401);
    expect(stats(a).entries).toBe(entries);
  });

  it('refuses the old key on every instance once the rotation through another has answered, under load', async () => {
    const m = await a.merchant();
    await warm(b, m.apiKey);
    const token = await signIn(a, m);
    const traffic = [load(b, m.apiKey), load(a, m.apiKey)];
    await sleep(300);
    const rotated = await a.call('PUT', `/users/${m.userId}/apikey`, { headers: { authorization: `Bearer ${token}` } });
    const answeredAt = performance.now();
    expect(rotated.status, rotated.text).toBe(200);
    await sleep(300);
    await Promise.all(traffic.map((t) => t.stop()));

    const answers = traffic.flatMap((t) => t.answers);
    expect(answers.filter((r) => r.sentAt < answeredAt && r.status === 200).length).toBeGreaterThan(0);
    const after = answers.filter((r) => r.sentAt >= answeredAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((r) => r.status !== 401)).toEqual([]);
    expect((await b.call('GET', '/ping', { apiKey: rotated.body as string })).status).toBe(200);
  });

  it.each(Object.entries(takingKeysAway))(
    "refuses a developer's key on every instance once they are %s through another, under load",
    async (_, takeAway) => {
      const m = await a.merchant();
      const dev = await developerKey(a, m);
      await warm(b, dev.key);
      const traffic = [load(b, dev.key), load(a, dev.key)];
      let changed: CallResult;
      let answeredAt: number;
      try {
        await sleep(300);
        changed = await takeAway(a, dev.owner, dev.userId);
        answeredAt = performance.now();
        await sleep(300);
      } finally {
        await Promise.all(traffic.map((t) => t.stop()));
      }
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.apiKeysRevoked).toBe(1);

      const answers = traffic.flatMap((t) => t.answers);
      expect(answers.filter((r) => r.sentAt < answeredAt && r.status === 200).length).toBeGreaterThan(0);
      const after = answers.filter((r) => r.sentAt >= answeredAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((r) => r.status !== 401)).toEqual([]);
    },
  );

  it('refuses every key of a merchant on every instance once setMerchantStatus has returned', async () => {
    const m = await a.merchant();
    await warm(b, m.apiKey);
    await setMerchantStatus({ db: a.db }, { merchantId: m.merchantId, status: 'suspended' });
    const res = await b.call('GET', '/ping', { apiKey: m.apiKey });
    expect(res.status, res.text).toBe(403);
    await setMerchantStatus({ db: a.db }, { merchantId: m.merchantId, status: 'active' });
    expect((await b.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);
  });
});

/**
 * A cache of its own over the gateway's store, whose listener the test takes away by terminating the
 * listening backend.
 */
describe('a cache that loses its listener', () => {
  let heartbeat: Heartbeat;
  let cache: KeyCache;
  beforeAll(async () => {
    heartbeat = await startHeartbeat(a.db, a.gateway.app.ctx.logger);
    cache = await startKeyCache(
      { storage: a.gateway.app.ctx.storage, instanceId: heartbeat.instanceId, logger: a.gateway.app.ctx.logger },
      { enabled: true },
    );
  });
  afterAll(async () => {
    await cache?.stop();
    await heartbeat?.stop();
  });

  it('reads the database until it listens again, then caches again', async () => {
    const m = await a.merchant();
    const row = { keyId: 1, userId: m.userId, mode: 'test' as const, merchantId: m.merchantId };
    let reads = 0;
    const read = async () => {
      reads++;
      return { ...row, merchantStatus: 'active' as const };
    };
    await until(() => cache.stats().usable, 'a usable cache');
    await cache.lookup('hash-1', read);
    await cache.lookup('hash-1', read);
    expect(reads).toBe(1);

    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'svc-gateway-listener' and datname = current_database()`.execute(a.db);
    await until(() => !cache.stats().usable, 'the lost listener to be noticed');
    expect(cache.stats().entries).toBe(0);
    await cache.lookup('hash-1', read);
    await cache.lookup('hash-1', read);
    expect(reads).toBe(3);

    await until(() => cache.stats().usable, 'the listener to come back');
    await cache.lookup('hash-1', read);
    await cache.lookup('hash-1', read);
    expect(reads).toBe(4);
  });
});

/**
 * A listener that cannot connect while no primary answers (a failover: the proxy in front of the
 * cluster accepts the connection and closes it at once): it tries again once a second, however long
 * the failover lasts, never more often.
 */
describe('a cache whose listener cannot connect', () => {
  let refusing: net.Server;
  let storage: Storage;
  let heartbeat: Heartbeat;
  let cache: KeyCache | undefined;
  let attempts = 0;
  beforeAll(async () => {
    refusing = net.createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.address() as net.AddressInfo;
    storage = await openStorage({
      databaseUrl: a.config.databaseUrl!,
      listenUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    });
    heartbeat = await startHeartbeat(a.db, a.gateway.app.ctx.logger);
  });
  afterAll(async () => {
    await cache?.stop();
    await heartbeat?.stop();
    await storage?.close();
    await new Promise((resolve) => refusing?.close(resolve));
  });

  it('tries to listen again once a second, not twice as often after every failure', async () => {
    cache = await startKeyCache(
      { storage, instanceId: heartbeat.instanceId, logger: a.gateway.app.ctx.logger },
      { enabled: true },
    );
    await sleep(4500);
    // The first attempt, then one a second: five; a doubling would have made about thirty.
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(6);
    expect(cache.stats().usable).toBe(false);
  });
});

/**
 * An instance whose notices come late (a slow listener connection; the delay stands below the lease, so
 * its cache stays usable): a change that takes a user's keys away answers only once that instance has
 * seen it, as a rotation does, so from the answer on it does not accept the key either.
 */
describe('an instance whose notices come late', () => {
  const LATE_MS = 300;
  let heartbeat: Heartbeat;
  let cache: KeyCache;
  beforeAll(async () => {
    const storage = a.gateway.app.ctx.storage;
    const late: Storage = {
      ...storage,
      listen: (channel, given) =>
        storage.listen(channel, { ...given, notice: (payload) => setTimeout(() => given.notice(payload), LATE_MS) }),
    };
    heartbeat = await startHeartbeat(a.db, a.gateway.app.ctx.logger);
    cache = await startKeyCache(
      { storage: late, instanceId: heartbeat.instanceId, logger: a.gateway.app.ctx.logger },
      { enabled: true },
    );
  });
  afterAll(async () => {
    await cache?.stop();
    await heartbeat?.stop();
  });

  it.each(Object.entries(takingKeysAway))(
    "does not accept a developer's key once they are %s through another instance",
    async (_, takeAway) => {
      const m = await a.merchant();
      const dev = await developerKey(a, m);
      const verify = () => verifyApiKey({ db: a.db, keyCache: cache }, { key: dev.key });
      await until(() => cache.stats().usable, 'a usable cache');
      expect(await verify()).toMatchObject({ userId: dev.userId });
      const hits = cache.stats().hits;
      expect(await verify()).toMatchObject({ userId: dev.userId });
      expect(cache.stats().hits).toBe(hits + 1);

      const changed = await takeAway(a, dev.owner, dev.userId);
      expect(changed.status, changed.text).toBe(200);
      expect(await verify()).toBeUndefined();
    },
  );
});
