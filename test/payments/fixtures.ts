import { expect } from 'vitest';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';

export const payer = {
  name: 'Jane Doe',
  email: 'jane@example.com',
  phoneNumber: '4915112345678',
  address: '1 Main Street',
  city: 'Berlin',
  state: 'BE',
  postalCode: '10115',
  country: 'DE',
};

/** decisions.md "Sandbox behaviour". */
export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  amex: '378282246310005',
  otherLuhn: '4111111111111111',
  doNotHonor: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expiredCard: '4000000000000069',
  notPermitted: '4000000000000572',
  exceedsLimit: '4000000000000614',
  processorError: '4000000000000119',
  answersLater: '4000000000000994',
  challengeApprove: '4000002760003184',
  challengeDecline: '4000008400001629',
  frictionless: '4000000000003220',
} as const;

export const DECLINES: Array<[string, string]> = [
  [CARDS.doNotHonor, '05'],
  [CARDS.insufficientFunds, '51'],
  [CARDS.expiredCard, '54'],
  [CARDS.notPermitted, '57'],
  [CARDS.exceedsLimit, '61'],
];

/** The card submission paths by name. */
export const PATHS = {
  h2h: (id: number) => `/payments/h2h/${id}`,
  acme: (id: number) => `/payments/creditCard/acme/${id}`,
  globex: (id: number) => `/payments/creditCard/globex/${id}`,
} as const;
export type PathName = keyof typeof PATHS;

export const cvvFor = (number: string) => (number.startsWith('34') || number.startsWith('37') ? '1234' : '123');

export function card(number: string) {
  return { ...payer, number, expiration: '12/30', cvv: cvvFor(number) };
}

/** A wallet payment body (decisions.md "Sandbox behaviour": any token but wallet_decline / wallet_3ds approves). */
export function walletPayment(token: string, walletType = 'googlepay', extra: Record<string, unknown> = {}) {
  return { name: payer.name, email: payer.email, token, wallet: { walletType }, ...extra };
}

export function h2hCard(number: string, amount = 10.5, unit = 'EUR') {
  return { ...card(number), amount, unit };
}

export async function createRequest(
  gw: TestGateway,
  merchant: TestMerchant,
  amount = 10.5,
  currency = 'EUR',
  key = merchant.apiKey,
): Promise<number> {
  const res = await gw.call('POST', '/payment-requests', {
    apiKey: key,
    body: { amount, currency, reference: `order-${Math.random().toString(36).slice(2)}` },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.paymentRequestId;
}

/** Polls until the payment leaves `status` (callbacks arrive asynchronously over real HTTP). */
export async function waitForStatus(
  gw: TestGateway,
  merchant: TestMerchant,
  paymentId: number,
  leave: string,
  timeoutMs = 10_000,
) {
  const started = Date.now();
  for (;;) {
    await gw.runJobs();
    const res = await gw.call('GET', `/payments/${paymentId}`, { apiKey: merchant.apiKey });
    if (res.body.status !== leave || Date.now() - started > timeoutMs) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A UPI payment nobody answers, on the manual clock: still waiting 299 s in (UPI_COLLECT_TTL_SECONDS is
 * 300), then failed as expired with its request open again.
 */
export async function expectUpiExpiry(gw: TestGateway, merchant: TestMerchant, paymentId: number, requestId: number) {
  const read = async (path: string) => (await gw.call('GET', path, { apiKey: merchant.apiKey })).body;
  gw.clock.advance(299);
  await gw.runJobs();
  expect((await read(`/payments/${paymentId}`)).status).toBe('requires_action');
  gw.clock.advance(2);
  await gw.runJobs();
  expect(await read(`/payments/${paymentId}`)).toMatchObject({
    status: 'failed',
    failure: { error: 'UPI_TRANSACTION_FAILED', details: { upiResponse: null, reason: 'collect_expired' } },
  });
  expect(await read(`/payment-requests/status/${requestId}`)).toMatchObject({ status: 'open' });
}

/**
 * The payer's decision on the ACS page (served under the gateway's address), then the gateway's signed
 * return link followed once, not further. The ACS's callback settles through the job runner (off in
 * tests), run before following the link as a running gateway would have.
 */
export async function decideChallenge(gw: TestGateway, redirectUrl: string, decision: 'approve' | 'deny') {
  const posted = await fetch(redirectUrl, {
    method: 'POST',
    body: new URLSearchParams({ decision }),
    redirect: 'manual',
  });
  expect(posted.status).toBe(303);
  await gw.runJobs();
  const returnLink = new URL(posted.headers.get('location')!);
  // PUBLIC_URL is not set in most tests, so the link names the default public address; follow it here.
  const landing = await fetch(`${gw.url}${returnLink.pathname}${returnLink.search}`, { redirect: 'manual' });
  return { returnLink, landing };
}
