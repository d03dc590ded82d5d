import { hash } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { databaseAsText } from '../helpers/dump.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, payer, waitForStatus } from './fixtures.js';

const gw = useGateway({ env: { LOG_LEVEL: 'trace' } });
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

// Distinctive CVVs, so a stray occurrence cannot be a coincidence of ids or amounts.
const CVV3 = '739';
const CVV4 = '7391';
const cvvOf = (number: string) => (number.startsWith('37') ? CVV4 : CVV3);

/**
 * Every unkeyed digest someone holding a dump could match against bodies rebuilt from what the store
 * keeps of a card (BIN, last four, expiry, payer): SHA-256 and SHA-512, in hex, base64 and base64url, of
 * the body as sent, of its canonical form (members sorted), and of each as the idempotency fingerprint
 * once hashed it (method, path, key mode and body, one per line).
 */
function unkeyedDigests(path: string, body: unknown): string[] {
  const sent = JSON.stringify(body);
  const forms = [sent, canonicalJson(body)].flatMap((text) => [text, `POST\n${path}\ntest\n${text}`]);
  return forms.flatMap((form) =>
    (['sha256', 'sha512'] as const).flatMap((algorithm) =>
      (['hex', 'base64', 'base64url'] as const).map((encoding) => hash(algorithm, form, encoding)),
    ),
  );
}

it('no full PAN, no CVV and no card or checkout token in clear anywhere: database, logs, responses', async () => {
  const responses: string[] = [];
  const digests: string[] = [];
  let n = 0;
  const call = async (method: string, path: string, body?: Record<string, unknown>) => {
    if (body && ('number' in body || 'cvv' in body)) digests.push(...unkeyedDigests(path, body));
    // Idempotency keys on every POST: stored replayable responses must not hold a token in clear.
    const headers: Record<string, string> = method === 'POST' ? { 'X-Idempotency-Key': `card-data-${++n}` } : {};
    const res = await gw.call(method, path, { apiKey: m.apiKey, body, headers });
    responses.push(res.text, JSON.stringify([...res.headers]));
    return res;
  };

  const numbers = Object.values(CARDS);
  const tokens: string[] = [];
  for (const number of numbers) {
    for (const path of ['h2h', 'creditCard/acme', 'creditCard/globex']) {
      const id = await createRequest(gw, m);
      const body = {
        ...payer,
        number,
        expiration: '12/30',
        cvv: cvvOf(number),
        ...(path === 'h2h' ? { amount: 10.5, unit: 'EUR' } : {}),
      };
      const res = await call('POST', `/payments/${path}/${id}`, body);
      if (res.body?.cardToken) tokens.push(res.body.cardToken);
      if (res.body?.status === 'pending') await waitForStatus(gw, m, res.body.paymentId, 'pending');
      if (res.body?.paymentId) await call('GET', `/payments/${res.body.paymentId}`);
      if (res.body?.status === 'succeeded')
        await call('POST', `/payments/${res.body.paymentId}/refunds`, { amount: 1 });
    }
  }
  // The stored-token path decrypts the PAN for the processor: it must not leak there either.
  for (const token of tokens.slice(0, 3)) {
    const id = await createRequest(gw, m);
    await call('POST', `/payments/h2h/${id}`, { ...payer, token, amount: 10.5, unit: 'EUR' });
  }
  // Checkout session tokens too are only ever stored as hashes, replayable answers included.
  const checkoutTokens: string[] = [];
  for (let i = 0; i < 2; i++) {
    const minted = await call('POST', `/payment-requests/${await createRequest(gw, m)}/checkout-session`, {});
    checkoutTokens.push(minted.body.token);
  }
  // Invalid cards echo nothing either.
  const id = await createRequest(gw, m);
  await call('POST', `/payments/h2h/${id}`, {
    ...payer,
    number: '4242424242424241',
    expiration: '12/30',
    cvv: CVV3,
    amount: 10.5,
    unit: 'EUR',
  });
  await call('POST', `/payments/h2h/${id}`, {
    ...payer,
    number: CARDS.visa,
    expiration: '12/30',
    cvv: '7a9',
    amount: 10.5,
    unit: 'EUR',
  });
  await gw.runJobs();

  const dump = await databaseAsText(gw.db);
  const logs = gw.logs();
  expect(dump.length).toBeGreaterThan(10_000);
  expect(logs.length).toBeGreaterThan(10_000);

  for (const number of [...numbers, '4242424242424241']) {
    expect(dump, `PAN ${number} in the database`).not.toContain(number);
    expect(logs, `PAN ${number} in the logs`).not.toContain(number);
    for (const text of responses) expect(text, `PAN ${number} in a response`).not.toContain(number);
  }
  for (const cvv of [CVV3, CVV4, '7a9']) {
    const asValue = new RegExp(`["']${cvv}["']|=${cvv}\\b`);
    expect(dump, `CVV ${cvv} in the database`).not.toMatch(asValue);
    expect(logs, `CVV ${cvv} in the logs`).not.toMatch(asValue);
    for (const text of responses) expect(text, `CVV ${cvv} in a response`).not.toMatch(asValue);
  }
  // No id, amount or encoded value of the dump reads 7391 on its own: as a whole value (a column, a JSON
  // member, a form field) it can only be the Amex CVV. (Not the logs: a process id may be any number.)
  expect(dump, `CVV ${CVV4} in the database`).not.toMatch(new RegExp(`(?<![\\w+/-])${CVV4}(?![\\w+/-])`));
  // Nor any unkeyed digest of a body that carried a card: a CVV would be 1,000 tries away from it.
  expect(digests.length).toBeGreaterThan(40 * 24);
  const lowerDump = dump.toLowerCase();
  for (const digest of digests) {
    const found = /^[0-9a-f]+$/.test(digest) ? lowerDump.includes(digest) : dump.includes(digest);
    expect(found, `an unkeyed digest of a card payment's body in the database: ${digest}`).toBe(false);
    expect(logs.includes(digest), `an unkeyed digest of a card payment's body in the logs: ${digest}`).toBe(false);
  }
  // What is stored instead: ciphertext, fingerprint, BIN and last 4; tokens only as hashes.
  const cards = await gw.db.selectFrom('cards').selectAll().execute();
  expect(cards.length).toBeGreaterThan(10);
  for (const c of cards) {
    expect(c.bin).toHaveLength(6);
    expect(c.last4).toHaveLength(4);
    expect(c.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(c.key_id).toBeTruthy();
  }
  expect(tokens.length).toBeGreaterThan(5);
  for (const token of [...tokens, ...checkoutTokens]) {
    expect(token).toBeTruthy();
    expect(dump).not.toContain(token);
    expect(logs).not.toContain(token);
  }
  const replays = await gw.db
    .selectFrom('idempotency_keys')
    .select('response_body')
    .where('merchant_id', '=', m.merchantId)
    .execute();
  expect(replays.length).toBeGreaterThan(40);
}, 180_000);
