import type { Verdict } from './checks.js';
import type { GatewayLives } from './processes.js';

/**
 * After the failovers: the demo owner rotates the test key through one instance, and at once every
 * instance refuses the replaced key and takes the new one. The rotation is answered only once every
 * instance's key cache has acknowledged it, which it can only do when its LISTEN connection came back
 * on the new primary: a cache still listening to the dead server would go on accepting the old key.
 * The instances then use the new key for the checks that follow.
 */
export async function checkRotationAfterFailover(
  gateways: GatewayLives[],
  verdict: Verdict,
  log: (line: string) => void,
): Promise<void> {
  const [first] = gateways;
  const demo = first.demo;
  if (!demo) {
    verdict.violations.push('key rotation: the gateway named no demo merchant to rotate a key of');
    return;
  }
  const oldKey = first.apiKey;
  const login = await fetch(`${first.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: demo.email, password: demo.password }),
  });
  const { accessToken } = (await login.json()) as { accessToken?: string };
  const startedAt = Date.now();
  const rotated = await fetch(`${first.url}/users/${demo.userId}/apikey?mode=test`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${accessToken}` },
    signal: AbortSignal.timeout(20_000),
  });
  verdict.checked++;
  if (rotated.status !== 200) {
    verdict.violations.push(`key rotation after the failovers answered ${rotated.status}: ${await rotated.text()}`);
    return;
  }
  const newKey = (await rotated.json()) as string;
  log(`  test key rotated after the failovers in ${Date.now() - startedAt} ms`);
  for (const [index, gateway] of gateways.entries()) {
    const ping = async (key: string) => (await fetch(`${gateway.url}/ping`, { headers: { 'x-api-key': key } })).status;
    const [oldStatus, newStatus] = [await ping(oldKey), await ping(newKey)];
    verdict.checked += 2;
    if (oldStatus !== 401)
      verdict.violations.push(
        `instance ${index + 1} answered ${oldStatus} to the replaced key right after the rotation`,
      );
    if (newStatus !== 200)
      verdict.violations.push(`instance ${index + 1} answered ${newStatus} to the new key right after the rotation`);
    gateway.apiKey = newKey;
    gateway.rotatedKey = newKey;
  }
}
