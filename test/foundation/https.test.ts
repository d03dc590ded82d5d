import { rmSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { selfSignedCertificate } from '../helpers/tls.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';

// Production over TLS: the gateway terminates HTTPS itself with TLS_CERT_FILE/TLS_KEY_FILE.
let m: TestMerchant;
let tls: ReturnType<typeof selfSignedCertificate>;
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

const gw = useGateway(() => {
  tls = selfSignedCertificate();
  return {
    env: { NODE_ENV: 'production', ...PRODUCTION_SECRETS, TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile },
  };
});
beforeAll(async () => {
  m = await gw.merchant();
});
afterAll(async () => {
  await insecure.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await undiciFetch(`${gw.url}${path}`, { ...init, dispatcher: insecure });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('HTTPS with TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('serves the API over TLS with HSTS, in production', async () => {
    expect(gw.url).toMatch(/^https:\/\//);
    const ping = await call('/ping', { headers: { 'x-api-key': m.apiKey } });
    expect(ping.status).toBe(200);
    expect(ping.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    const login = await call('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: m.email, password: m.password }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('strict-transport-security')).toContain('max-age=');
  });

  it('puts HSTS on errors too', async () => {
    const res = await call('/ping');
    expect(res.status).toBe(401);
    expect(res.headers.get('strict-transport-security')).toContain('max-age=');
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    const plain = gw.url.replace('https://', 'http://');
    const outcome = await fetch(`${plain}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(outcome).not.toBe(200);
  });

  it('uses an https public URL by default', () => {
    expect(gw.config.publicUrl).toMatch(/^https:\/\/localhost:/);
  });
});
