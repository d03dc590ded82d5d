import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
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

it('no full PAN, no CVV and no card or checkout token in clear anywhere: database, logs, responses', async () => {
  const responses: string[] = [];
  let n = 0;
  const call = async (method: string, path: string, body?: unknown) => {
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

  const tables = await sql<{
    table_name: string;
  }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(gw.db);
  let dump = '';
  for (const { table_name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(table_name)}`.execute(gw.db);
    dump += JSON.stringify(rows.rows);
  }
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
