import { inTransaction } from '../../src/storage/db-context.js';
import { createCustomer } from '../../src/modules/customers/index.js';
import { expect } from 'vitest';
import type { CallResult, TestGateway } from '../helpers/gateway.js';

let counter = 0;

/** A valid creation body; tests override one field at a time. */
export const requestBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  amount: 25.5,
  currency: 'EUR',
  reference: `order-${++counter}`,
  ...overrides,
});

export async function createRequest(gw: TestGateway, apiKey: string, overrides: Record<string, unknown> = {}) {
  const res = await gw.call('POST', '/payment-requests', { apiKey, body: requestBody(overrides) });
  expect(res.status, res.text).toBe(200);
  return res.body as CreatedRequest;
}

export interface CreatedRequest {
  paymentRequestId: number;
  reference: string;
  checkoutUrl: string;
  [field: string]: any;
}

export async function mintToken(gw: TestGateway, apiKey: string, paymentRequestId: number): Promise<string> {
  const res = await gw.call('POST', `/payment-requests/${paymentRequestId}/checkout-session`, { apiKey, body: {} });
  expect(res.status, res.text).toBe(200);
  return res.body.token;
}

/** ISO date-time `seconds` after the gateway's (manual) clock. */
export const inSeconds = (gw: TestGateway, seconds: number) =>
  new Date(gw.clock.now().getTime() + seconds * 1000).toISOString();

/** A customer for requests to point at, made by the customers module's own action. */
export async function insertCustomer(
  gw: TestGateway,
  merchant: { merchantId: number; userId: number },
  livemode = false,
): Promise<number> {
  const scope = { merchantId: merchant.merchantId, livemode, userId: merchant.userId };
  const customer = await inTransaction({ db: gw.db, clock: gw.clock }, (trx) =>
    createCustomer(trx, { name: 'Ada Lovelace', email: `ada${++counter}@example.com`, scope }),
  );
  return customer.id;
}

/** The error-guide body (not a problem record), with the expected error name and code. */
export function expectErrorGuide(res: CallResult, status: number, error: string, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({
    error,
    code,
    message: expect.any(String),
    timestamp: expect.any(String),
    requestId: res.headers.get('x-request-id'),
  });
  expect(res.body).not.toHaveProperty('type');
  expect(res.body).not.toHaveProperty('title');
}
