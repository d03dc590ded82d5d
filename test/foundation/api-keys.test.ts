import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';

const gw = useGateway();

const KEY = { test: /^svc_test_sk_[0-9A-Za-z]{32,}$/, live: /^svc_live_sk_[0-9A-Za-z]{32,}$/ };

async function signIn(m: TestMerchant): Promise<string> {
  const res = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  return res.body.accessToken;
}

const rotate = (userId: number, token: string | undefined, query = '') =>
  gw.call('PUT', `/users/${userId}/apikey${query}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

const ping = (apiKey: string) => gw.call('GET', '/ping', { apiKey });

/** A token with the gateway's own claims, signed however the test says. */
async function craft(
  m: TestMerchant,
  options: { secret: string; alg?: string; issuer?: string; audience?: string },
): Promise<string> {
  const now = Math.floor(gw.clock.now().getTime() / 1000);
  return new SignJWT({ mid: m.merchantId })
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .setSubject(String(m.userId))
    .setIssuer(options.issuer ?? 'svc-gateway')
    .setAudience(options.audience ?? 'svc-gateway:control-panel')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(options.secret));
}

async function jwtSecret(): Promise<string> {
  const row = await gw.db
    .selectFrom('system_secrets')
    .select('value')
    .where('name', '=', 'jwt_secret')
    .executeTakeFirstOrThrow();
  return row.value;
}

describe('PUT /users/{userId}/apikey', () => {
  it('answers a new test key as a JSON string by default, and a live key with ?mode=live', async () => {
    const m = await gw.merchant();
    const token = await signIn(m);

    const byDefault = await rotate(m.userId, token);
    expect(byDefault.status).toBe(200);
    expect(byDefault.headers.get('content-type')).toMatch(/^application\/json/);
    expect(byDefault.text.startsWith('"')).toBe(true);
    expect(byDefault.body).toMatch(KEY.test);
    expect(byDefault.headers.get('cache-control')).toBe('no-store');

    const explicitTest = await rotate(m.userId, token, '?mode=test');
    expect(explicitTest.body).toMatch(KEY.test);
    const live = await rotate(m.userId, token, '?mode=live');
    expect(live.status).toBe(200);
    expect(live.body).toMatch(KEY.live);

    expect((await ping(explicitTest.body)).body.message).toMatch(/test mode/);
    expect((await ping(live.body)).body.message).toMatch(/live mode/);
  });

  it('retires the previous key of that mode on the very next request and leaves the other mode alone', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const token = await signIn(m);
    expect((await ping(m.apiKey)).status).toBe(200);

    const fresh = (await rotate(m.userId, token, '?mode=test')).body;
    expectErrorGuide(await ping(m.apiKey), 'INVALID_API_KEY');
    expect((await ping(fresh)).status).toBe(200);
    expect((await ping(m.liveKey!)).status).toBe(200);

    const freshLive = (await rotate(m.userId, token, '?mode=live')).body;
    expectErrorGuide(await ping(m.liveKey!), 'INVALID_API_KEY');
    expect((await ping(freshLive)).status).toBe(200);
    expect((await ping(fresh)).status).toBe(200);
  });

  it('stores only the SHA-256 of a key, never the key', async () => {
    const m = await gw.merchant();
    const token = await signIn(m);
    const keys = [m.apiKey, (await rotate(m.userId, token)).body, (await rotate(m.userId, token, '?mode=live')).body];

    const rows = await gw.db.selectFrom('api_keys').selectAll().where('user_id', '=', m.userId).orderBy('id').execute();
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.key_hash)).toEqual(keys.map((k) => createHash('sha256').update(k).digest('hex')));
    expect(
      rows
        .filter((r) => r.revoked_at === null)
        .map((r) => r.mode)
        .sort(),
    ).toEqual(['live', 'test']);

    // Nowhere in the database: not in api_keys, not in any other table.
    const tables = await sql<{
      table_name: string;
    }>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(
      gw.db,
    );
    let dump = '';
    for (const { table_name } of tables.rows) {
      const content = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(gw.db);
      dump += content.rows.map((r) => r.row).join('\n');
    }
    expect(dump).toContain(rows[0].key_hash);
    for (const key of keys) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(12));
    }
  });

  it("refuses another user's id with 403", async () => {
    const m = await gw.merchant();
    const other = await gw.merchant();
    const token = await signIn(m);
    const res = await rotate(other.userId, token);
    expectErrorGuide(res, 'FORBIDDEN');
    expect(res.body.code).toBe('AUTH002');
    expectErrorGuide(await rotate(999_999, token), 'FORBIDDEN');
    // The other user's key is untouched.
    expect((await ping(other.apiKey)).status).toBe(200);
  });

  describe('refuses with 401 UNAUTHORIZED', () => {
    let m: TestMerchant;
    beforeAll(async () => {
      m = await gw.merchant();
    });

    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const expectRefused = async (headers: Record<string, string>) => {
      const res = await gw.call('PUT', `/users/${m.userId}/apikey`, { headers });
      expectErrorGuide(res, 'UNAUTHORIZED');
      expect(res.body.code).toBe('AUTH001');
      // Nothing was rotated.
      expect((await ping(m.apiKey)).status).toBe(200);
    };

    it('a missing token, a malformed one, or other credentials in its place', async () => {
      await expectRefused({});
      await expectRefused(bearer('not-a-jwt'));
      await expectRefused({ authorization: `Basic ${Buffer.from(`${m.email}:${m.password}`).toString('base64')}` });
      await expectRefused({ 'x-api-key': m.apiKey });
    });

    it('a token signed with another secret', async () => {
      await expectRefused(bearer(await craft(m, { secret: 'not-the-gateway-secret-but-32-characters-long' })));
    });

    it('an unsigned token (alg "none")', async () => {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(gw.clock.now().getTime() / 1000);
      const claims = {
        sub: String(m.userId),
        mid: m.merchantId,
        iss: 'svc-gateway',
        aud: 'svc-gateway:control-panel',
        iat: now,
        exp: now + 600,
      };
      await expectRefused(bearer(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`));
    });

    it('a token with the right secret but another algorithm, issuer or audience', async () => {
      const secret = await jwtSecret();
      const accepted = await rotate(m.userId, await craft(m, { secret }));
      expect(accepted.status).toBe(200);
      m.apiKey = accepted.body;
      await expectRefused(bearer(await craft(m, { secret, alg: 'HS512' })));
      await expectRefused(bearer(await craft(m, { secret, issuer: 'someone-else' })));
      await expectRefused(bearer(await craft(m, { secret, audience: 'svc-gateway:checkout' })));
    });

    it('an expired token (one hour after sign-in)', async () => {
      const token = await signIn(m);
      gw.clock.advance(3599);
      const accepted = await rotate(m.userId, token);
      expect(accepted.status).toBe(200);
      m.apiKey = accepted.body;
      gw.clock.advance(2);
      await expectRefused(bearer(token));
    });
  });

  it('answers 400 for a mode or user id that cannot be', async () => {
    const m = await gw.merchant();
    const token = await signIn(m);
    const mode = await rotate(m.userId, token, '?mode=production');
    expectErrorGuide(mode, 'INVALID_FORMAT');
    expect(mode.body.details).toEqual({ field: 'mode', value: 'production' });
    expect(mode.body.message).toMatch(/test, live/);
    for (const id of ['abc', '0', '-1', '1.5']) {
      const res = await gw.call('PUT', `/users/${id}/apikey`, { headers: { authorization: `Bearer ${token}` } });
      expectErrorGuide(res, 'INVALID_FORMAT');
      expect(res.body.details.field).toBe('userId');
    }
  });
});
