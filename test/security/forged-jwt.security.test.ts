import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeJwt } from '../helpers/assertions.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { pathWith, publishedOperations } from './routes.js';

/**
 * Forged control-panel access tokens on every operation that takes one: each answers 401 AUTH001
 * and rotates nothing, while the genuine token (the control) is accepted.
 */
let gw: TestGateway;
let m: TestMerchant;
let genuine: string;
let paths: Array<{ method: string; path: string }>;
beforeAll(async () => {
  gw = await startTestGateway();
  m = await gw.merchant();
  genuine = (await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } })).body.accessToken;
  paths = (await publishedOperations(gw))
    .filter((op) => op.security.includes('AccessToken'))
    .map((op) => ({ method: op.method, path: pathWith(op, m.userId) }));
});
afterAll(async () => gw?.close());

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hs = (algorithm: 'sha256' | 'sha384' | 'sha512', key: string | Buffer, input: string) =>
  createHmac(algorithm, key).update(input).digest('base64url');

function forgeries(): Array<[string, string]> {
  const { header, claims } = decodeJwt(genuine);
  const secret = gw.gateway.app.ctx.secrets.jwtSecret;
  const [h, p, signature] = genuine.split('.');
  const resign = (hd: object, cl: object, key: string = secret, algorithm: 'sha256' | 'sha512' = 'sha256') => {
    const input = `${b64(hd)}.${b64(cl)}`;
    return `${input}.${hs(algorithm, key, input)}`;
  };
  const now = Math.floor(gw.clock.now().getTime() / 1000);
  return [
    ['alg none, no signature', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`],
    ['alg none, original signature', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.${signature}`],
    ['alg "None"', `${b64({ alg: 'None', typ: 'JWT' })}.${p}.`],
    ['signed with another key', resign(header, claims, 'not-the-gateway-secret-at-all-0123456789')],
    ['HS512 with the right key (algorithm not allowed)', resign({ ...header, alg: 'HS512' }, claims, secret, 'sha512')],
    ['expired an hour ago (right key)', resign(header, { ...claims, iat: now - 7200, exp: now - 3600 })],
    ['no expiry (right key)', resign(header, Object.fromEntries(Object.entries(claims).filter(([k]) => k !== 'exp')))],
    ['another issuer (right key)', resign(header, { ...claims, iss: 'someone-else' })],
    ['another audience (right key)', resign(header, { ...claims, aud: 'svc-gateway:merchant-api' })],
    [
      'claims tampered, signature kept (other user)',
      `${h}.${b64({ ...claims, sub: String(Number(claims.sub) + 1) })}.${signature}`,
    ],
    [
      'claims tampered, signature kept (longer expiry)',
      `${h}.${b64({ ...claims, exp: claims.exp + 86_400 })}.${signature}`,
    ],
    ['signature truncated', genuine.slice(0, -4)],
    ['signature of another token', `${h}.${p}.${hs('sha256', secret, 'x')}`],
    ['two segments', `${h}.${p}`],
    ['not a JWT', 'abc'],
    ['kid header pointing elsewhere', resign({ ...header, kid: '../../../../dev/null' }, claims, '')],
  ];
}

it('every forged token answers 401 AUTH001 on every access-token operation', async () => {
  expect(paths.length).toBeGreaterThan(0);
  for (const { method, path } of paths) {
    for (const [name, token] of forgeries()) {
      const res = await gw.call(method, path, { headers: { authorization: `Bearer ${token}` } });
      expect([res.status, res.body.code], `${name}: ${res.text}`).toEqual([401, 'AUTH001']);
    }
  }
  // Nothing was rotated: the merchant's key still works.
  expect((await gw.call('GET', '/ping', { apiKey: m.apiKey })).status).toBe(200);
});

it('a token that is genuine in every way but its age is refused once it expires', async () => {
  const secret = new TextEncoder().encode(gw.gateway.app.ctx.secrets.jwtSecret);
  const { claims } = decodeJwt(genuine);
  const now = Math.floor(gw.clock.now().getTime() / 1000);
  const fresh = await new SignJWT({ mid: claims.mid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(secret);
  const { method, path } = paths[0];
  expect((await gw.call(method, `${path}?mode=live`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(
    200,
  );
  gw.clock.advance(61);
  const late = await gw.call(method, `${path}?mode=live`, { headers: { authorization: `Bearer ${fresh}` } });
  expect([late.status, late.body.code]).toEqual([401, 'AUTH001']);
});

it('the genuine token is accepted (the control)', async () => {
  const login = await gw.call('POST', '/auth/login', { body: { email: m.email, password: m.password } });
  const { method, path } = paths[0];
  const res = await gw.call(method, `${path}?mode=live`, {
    headers: { authorization: `Bearer ${login.body.accessToken}` },
  });
  expect(res.status, res.text).toBe(200);
});
