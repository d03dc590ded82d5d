import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Operation } from '../../proof/fuzz/contract.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { pathWith, publishedOperations, validBodyOf } from './routes.js';

/**
 * Checkout session tokens over every operation of /openapi.json (decisions.md "Credentials"):
 * only GET /payment-requests/{boundId} and the four payment submissions for {boundId} accept
 * one; every other API-key operation, and those for another id, answer 403 FORBIDDEN (AUTH002);
 * the control-panel operations (access token) do not take it as a credential (401 AUTH001).
 */
const ALLOW_LIST = [
  'GET /payment-requests/{id}',
  'POST /payments/h2h/{id}',
  'POST /payments/creditCard/acme/{id}',
  'POST /payments/creditCard/globex/{id}',
  'POST /payments/wallet/{id}',
];

let gw: TestGateway;
let ops: Operation[];
let m: TestMerchant;
beforeAll(async () => {
  gw = await startTestGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
  ops = await publishedOperations(gw);
  m = await gw.merchant();
});
afterAll(async () => gw?.close());

async function boundToken(): Promise<{ id: number; token: string }> {
  const created = await gw.call('POST', '/payment-requests', {
    apiKey: m.apiKey,
    body: { amount: 10.5, currency: 'EUR', reference: 'scoped' },
  });
  const minted = await gw.call('POST', `/payment-requests/${created.body.paymentRequestId}/checkout-session`, {
    apiKey: m.apiKey,
    body: {},
  });
  expect(minted.status, minted.text).toBe(200);
  return { id: created.body.paymentRequestId, token: minted.body.token };
}

it('the document offers the token on exactly the allow-listed operations', () => {
  expect(
    ops
      .filter((op) => op.security.includes('CheckoutToken'))
      .map((op) => op.id)
      .sort(),
  ).toEqual([...ALLOW_LIST].sort());
});

const apiKeyOperations = () => ops.filter((o) => o.security.includes('ApiKey'));

it('every API-key operation refuses a token outside the allow-list with 403 AUTH002, even for the bound id, with or without an API key', async () => {
  const { id, token } = await boundToken();
  const other = (await boundToken()).id;
  let checks = 0;
  for (const op of apiKeyOperations()) {
    const ids = ALLOW_LIST.includes(op.id) ? [other] : [id, other];
    for (const target of ids) {
      for (const apiKey of [undefined, m.apiKey]) {
        const res = await gw.call(op.method, pathWith(op, target), {
          apiKey,
          headers: { 'x-checkout-token': token },
          body: validBodyOf(op),
        });
        expect(
          [res.status, res.body?.code],
          `${op.id} for ${target === id ? 'the bound' : 'another'} id: ${res.text}`,
        ).toEqual([403, 'AUTH002']);
        checks++;
      }
    }
  }
  expect(checks).toBeGreaterThan(40);
  // A control-panel operation wants an access token: a checkout token is no credential there at all.
  for (const op of ops.filter((o) => o.security.includes('AccessToken'))) {
    const res = await gw.call(op.method, pathWith(op, m.userId), { headers: { 'x-checkout-token': token } });
    expect([res.status, res.body?.code], op.id).toEqual([401, 'AUTH001']);
  }
  // Nothing the refused calls asked for happened: both requests are still open and unpaid.
  for (const target of [id, other]) {
    expect((await gw.call('GET', `/payment-requests/${target}`, { apiKey: m.apiKey })).body).toMatchObject({
      status: 'open',
      amountPaid: 0,
    });
  }
});

it('each allow-listed operation accepts the token for its bound id', async () => {
  for (const op of ops.filter((o) => ALLOW_LIST.includes(o.id))) {
    const { id, token } = await boundToken();
    const res = await gw.call(op.method, pathWith(op, id), {
      headers: { 'x-checkout-token': token },
      body: validBodyOf(op),
    });
    expect(res.status, `${op.id}: ${res.text}`).toBe(200);
  }
});
