import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { card, CARDS, createRequest } from '../payments/fixtures.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw?.close());

it('a 409 about a moment (the request is authorized, awaiting capture) is not kept: the same key later gets the real answer', async () => {
  const m = await gw.merchant();
  const requestId = await createRequest(gw, m);
  const path = `/payments/creditCard/acme/${requestId}`;
  const first = await gw.call('POST', path, { apiKey: m.apiKey, body: { ...card(CARDS.visa), captureDelayHours: 2 } });
  expect(first.body.status).toBe('authorized');

  const key = randomUUID();
  const busy = await gw.call('POST', path, {
    apiKey: m.apiKey,
    headers: { 'x-idempotency-key': key },
    body: card(CARDS.mastercard),
  });
  expect(busy.status).toBe(409);
  expect(busy.body.detail).toMatch(/is authorized/);

  // The authorization is voided: the request is open again, and the same key now pays it.
  expect((await gw.call('POST', `/payments/${first.body.paymentId}/cancel`, { apiKey: m.apiKey })).status).toBe(200);
  const paid = await gw.call('POST', path, {
    apiKey: m.apiKey,
    headers: { 'x-idempotency-key': key },
    body: card(CARDS.mastercard),
  });
  expect(paid.status).toBe(200);
  expect(paid.headers.get('idempotent-replayed')).toBeNull();
  expect(paid.body.status).toBe('succeeded');

  // That decided answer is the one the key keeps.
  const replay = await gw.call('POST', path, {
    apiKey: m.apiKey,
    headers: { 'x-idempotency-key': key },
    body: card(CARDS.mastercard),
  });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(paid.text);
});
