import { readFileSync, rmSync } from 'node:fs';
import { Agent, fetch as fetchWithAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AdyenSimulator, startAdyenSimulator } from '../../simulators/adyen/index.js';
import { type StripeSimulator, startStripeSimulator, totalsFor } from '../../simulators/stripe/index.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { selfSignedCertificate } from '../helpers/tls.js';
import { card, createRequest, h2hCard, PATHS, payer } from './fixtures.js';

// Card payments routed through merchants' processor connections: the gateway over real HTTP, the
// official SDKs inside its connectors, and the contract simulators holding every exchange to the
// processors' OpenAPI documents (violations stay empty).

const FAILURES_TO_OPEN = 3;
const COOL_DOWN_SECONDS = 30;

let stripe: StripeSimulator;
let adyen: AdyenSimulator;
let tls: ReturnType<typeof selfSignedCertificate>;
let gw: TestGateway;
/** The payer's browser, trusting the Adyen simulator's throwaway certificate. */
let browser: Agent;

beforeAll(async () => {
  tls = selfSignedCertificate();
  browser = new Agent({ connect: { ca: readFileSync(tls.certFile) } });
  stripe = await startStripeSimulator();
  adyen = await startAdyenSimulator({ tls: { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) } });
  gw = await startTestGateway({
    env: {
      STRIPE_API_BASE: stripe.url,
      ADYEN_CHECKOUT_API_BASE: adyen.url,
      ADYEN_CHECKOUT_INSECURE_TLS: 'true',
      PROCESSOR_TIMEOUT_MS: '1500',
      PROCESSOR_CIRCUIT_FAILURES: String(FAILURES_TO_OPEN),
      PROCESSOR_CIRCUIT_COOLDOWN_SECONDS: String(COOL_DOWN_SECONDS),
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await stripe?.close();
  await adyen?.close();
  await browser?.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

afterEach(() => {
  expect(stripe.violations).toEqual([]);
  expect(adyen.violations).toEqual([]);
});

const stripeConnection = (slots: string[], priority = 10, secretKey = stripe.apiKey) => ({
  processor: 'stripe',
  credentials: { secretKey, webhookSecret: stripe.webhookSecret },
  slots,
  priority,
});
const adyenConnection = (slots: string[], priority = 0) => ({
  processor: 'adyen',
  credentials: {
    apiKey: adyen.apiKey,
    merchantAccount: 'GatewayMerchantECOM',
    hmacKey: adyen.hmacKey,
    environment: 'test',
  },
  slots,
  priority,
});
const sandboxConnection = (slots: string[], priority = 0) => ({
  processor: 'sandbox',
  credentials: {},
  slots,
  priority,
});

async function merchantWith(...connections: object[]): Promise<TestMerchant & { connectionIds: string[] }> {
  const m = await gw.merchant();
  const connectionIds: string[] = [];
  for (const body of connections) {
    const res = await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body });
    expect(res.status, res.text).toBe(201);
    connectionIds.push(res.body.connectionId);
  }
  return { ...m, connectionIds };
}

async function payH2h(m: TestMerchant, number: string, extra: Record<string, unknown> = {}) {
  const id = await createRequest(gw, m);
  return gw.call('POST', PATHS.h2h(id), { apiKey: m.apiKey, body: { ...h2hCard(number), ...extra } });
}

/**
 * A payment challenged by 3-D Secure: the payer answers on the processor's challenge page, which sends
 * the browser back to the gateway's signed return URL, and the browser follows it.
 */
async function challengeAndReturn(m: TestMerchant, number: string, action: 'approve' | 'deny') {
  const challenged = await payH2h(m, number);
  expect(challenged.status, challenged.text).toBe(200);
  expect(challenged.body.status).toBe('requires_action');
  const id = challenged.body.paymentId as number;
  const answer = await fetchWithAgent(challenged.body.redirectUrl as string, {
    method: 'POST',
    body: new URLSearchParams({ action }),
    redirect: 'manual',
    dispatcher: browser,
  });
  const back = new URL(answer.headers.get('location')!);
  expect(back.pathname).toBe(`/payments/${id}/return`);
  const landing = await fetch(`${gw.url}${back.pathname}${back.search}`, { redirect: 'manual' });
  return { id, back, landing };
}

const stripeCharges = (paymentId: number) => totalsFor(stripe.ledger(), `pay_${paymentId}`);
const adyenCharges = (paymentId: number) => totalsFor(adyen.ledger(), `pay_${paymentId}`);
const healthOf = async (m: TestMerchant, connectionId: string) =>
  (await gw.call('GET', `/processor-connections/${connectionId}`, { apiKey: m.apiKey })).body.health;

describe('through a Stripe connection', () => {
  it('charges once on Stripe, and captures, refunds in part and in full through the same account', async () => {
    const m = await merchantWith(stripeConnection(['h2h']));
    const paid = await payH2h(m, '4242424242424242', { captureDelayHours: 2 });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'authorized', processor: 'stripe' });
    expect(paid.body.transactionId).toMatch(/^pi_/);
    const id = paid.body.paymentId as number;
    expect(stripeCharges(id)).toMatchObject({ payments: 1, authorised: 1050, captured: 0 });

    const captured = await gw.call('POST', `/payments/${id}/capture`, { apiKey: m.apiKey });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.status).toBe('succeeded');
    expect(stripeCharges(id)).toMatchObject({ captured: 1050 });

    const part = await gw.call('POST', `/payments/${id}/refunds`, { apiKey: m.apiKey, body: { amount: 3 } });
    expect(part.status, part.text).toBe(200);
    expect(part.body.status).toBe('succeeded');
    const rest = await gw.call('POST', `/payments/${id}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 7.5 });
    expect(stripeCharges(id)).toMatchObject({ payments: 1, captured: 1050, refunded: 1050 });
  });

  it('voids an authorization at Stripe', async () => {
    const m = await merchantWith(stripeConnection(['h2h']));
    const paid = await payH2h(m, '5555555555554444', { captureDelayHours: 2 });
    const id = paid.body.paymentId as number;
    const canceled = await gw.call('POST', `/payments/${id}/cancel`, { apiKey: m.apiKey });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(stripe.ledger().filter((e) => e.reference === `pay_${id}`)).toMatchObject([{ status: 'canceled' }]);
  });

  it.each([
    ['4000000000000002', '05'],
    ['4000000000009995', '51'],
    ['4000000000000069', '54'],
  ])('answers Stripe’s decline of %s with our code %s, charging nothing', async (number, code) => {
    const m = await merchantWith(stripeConnection(['h2h']));
    const declined = await payH2h(m, number);
    expect(declined.status).toBe(402);
    expect(declined.body.details).toMatchObject({ declineCode: code });
    expect(stripeCharges(declined.body.paymentId as number)).toMatchObject({ captured: 0 });
  });

  it('runs 3-D Secure through the payer’s challenge and back through the gateway, reading the outcome from Stripe', async () => {
    const m = await merchantWith(stripeConnection(['h2h']));
    const { id, landing } = await challengeAndReturn(m, '4000002760003184', 'approve');
    expect(landing.status).toBeLessThan(400);
    const payment = await gw.call('GET', `/payments/${id}`, { apiKey: m.apiKey });
    expect(payment.body.status).toBe('succeeded');
    expect(stripeCharges(id)).toMatchObject({ payments: 1, captured: 1050 });
  });

  it('settles a charge whose answer was lost by reconciliation, from the stored attempt', async () => {
    const m = await merchantWith(stripeConnection(['h2h']));
    stripe.next({ match: '/confirm', hang: true, processed: true });
    const paid = await payH2h(m, '4242424242424242');
    expect(paid.body).toMatchObject({ status: 'pending', processor: 'stripe' });
    const id = paid.body.paymentId as number;
    // What was sent is in the store, not in this instance's memory: any instance can settle it.
    const attempt = await gw.db
      .selectFrom('processor_attempts')
      .select('facts')
      .where('reference', '=', `pay_${id}`)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(attempt.facts)).not.toContain('4242424242424242');
    gw.clock.advance(61);
    await gw.runJobs();
    const settled = await gw.call('GET', `/payments/${id}`, { apiKey: m.apiKey });
    expect(settled.body.status).toBe('succeeded');
    expect(stripeCharges(id)).toMatchObject({ payments: 1, captured: 1050 });
  });

  it('serves the card path its connection names (acme), and leaves another path on the sandbox', async () => {
    const m = await merchantWith(stripeConnection(['acme']));
    const id = await createRequest(gw, m);
    const acme = await gw.call('POST', PATHS.acme(id), { apiKey: m.apiKey, body: card('4242424242424242') });
    expect(acme.body).toMatchObject({ status: 'succeeded', processor: 'stripe' });
    const other = await createRequest(gw, m);
    const globex = await gw.call('POST', PATHS.globex(other), { apiKey: m.apiKey, body: card('4242424242424242') });
    expect(globex.body.processor).toBe('globex');
  });
});

describe('through an Adyen connection', () => {
  it('approves, then refunds (pending until Adyen’s notification)', async () => {
    const m = await merchantWith(adyenConnection(['h2h']));
    const paid = await payH2h(m, '4111111111111111');
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', processor: 'adyen' });
    const id = paid.body.paymentId as number;
    expect(adyenCharges(id)).toMatchObject({ payments: 1, captured: 1050 });
    const refund = await gw.call('POST', `/payments/${id}/refunds`, { apiKey: m.apiKey, body: { amount: 5 } });
    expect(refund.status, refund.text).toBe(200);
    expect(refund.body.status).toBe('pending');
    expect(adyenCharges(id)).toMatchObject({ refunded: 500 });
  });

  it('runs 3-D Secure through /payments/details on the return; a denied challenge fails the payment', async () => {
    const m = await merchantWith(adyenConnection(['h2h']));
    const { id, back } = await challengeAndReturn(m, '4917610000000000', 'deny');
    expect(back.searchParams.get('redirectResult')).toBeTruthy();
    const payment = await gw.call('GET', `/payments/${id}`, { apiKey: m.apiKey });
    expect(payment.body).toMatchObject({ status: 'failed' });
    expect(adyenCharges(id)).toMatchObject({ captured: 0 });
  });

  it('charges a card stored through Stripe through Adyen: the gateway holds the card', async () => {
    const viaStripe = await merchantWith(stripeConnection(['h2h']));
    const first = await payH2h(viaStripe, '4242424242424242');
    expect(first.body.processor).toBe('stripe');
    const token = first.body.cardToken as string;
    // The same merchant now routes h2h to Adyen first.
    const moved = await gw.call('POST', '/processor-connections', {
      apiKey: viaStripe.apiKey,
      body: adyenConnection(['h2h'], 100),
    });
    expect(moved.status, moved.text).toBe(201);
    const id = await createRequest(gw, viaStripe);
    const again = await gw.call('POST', PATHS.h2h(id), {
      apiKey: viaStripe.apiKey,
      body: { ...payer, token, amount: 10.5, unit: 'EUR' },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ status: 'succeeded', processor: 'adyen' });
    expect(adyenCharges(again.body.paymentId as number)).toMatchObject({ payments: 1, captured: 1050 });
  });
});

describe('failover', () => {
  it('moves to the next connection when the first refused before creating anything: one charge across both', async () => {
    const m = await merchantWith(stripeConnection(['h2h'], 10), sandboxConnection(['h2h'], 0));
    stripe.next({ match: 'POST /v1/payment_methods', status: 503 });
    const paid = await payH2h(m, '4242424242424242');
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('succeeded');
    expect(paid.body.processor).not.toBe('stripe');
    const attempts = await gw.call('GET', `/payments?paymentRequestId=${paid.body.paymentRequestId}`, {
      apiKey: m.apiKey,
    });
    const stripeAttempt = attempts.body.data.find((p: { processor: string }) => p.processor === 'stripe');
    expect(stripeAttempt).toMatchObject({ status: 'failed' });
    expect(stripeCharges(stripeAttempt.paymentId as number)).toMatchObject({ payments: 0, captured: 0 });
  });

  it('never moves on after a time-out: the payment stays pending for reconciliation', async () => {
    const m = await merchantWith(stripeConnection(['h2h'], 10), sandboxConnection(['h2h'], 0));
    stripe.next({ match: '/confirm', hang: true });
    const paid = await payH2h(m, '4242424242424242');
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'pending', processor: 'stripe' });
    const attempts = await gw.call('GET', `/payments?paymentRequestId=${paid.body.paymentRequestId}`, {
      apiKey: m.apiKey,
    });
    expect(attempts.body.data).toHaveLength(1);
  });

  it('retries a soft decline on the next connection only when the merchant lists its code', async () => {
    const m = await merchantWith(stripeConnection(['h2h'], 10), adyenConnection(['h2h'], 0));
    const declined = await payH2h(m, '4000000000000002');
    expect(declined.status).toBe(402);
    expect(declined.body.details.declineCode).toBe('05');

    const set = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { retryDeclineCodes: ['05'] } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.retryDeclineCodes).toEqual(['05']);
    const retried = await payH2h(m, '4000000000000002');
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ status: 'succeeded', processor: 'adyen' });
  });
});

describe('circuit breaker', () => {
  it('opens after repeated unavailable answers, skips the connection, then a probe closes it', async () => {
    const m = await merchantWith(stripeConnection(['h2h'], 10), sandboxConnection(['h2h'], 0));
    const [stripeId] = m.connectionIds;
    stripe.next({ match: 'POST /v1/payment_methods', status: 503 }, FAILURES_TO_OPEN);
    for (let i = 0; i < FAILURES_TO_OPEN; i++) {
      const paid = await payH2h(m, '4242424242424242');
      expect(paid.body.status).toBe('succeeded');
    }
    expect(await healthOf(m, stripeId)).toBe('open');
    const calls = stripe.ledger().length;
    const skipped = await payH2h(m, '4242424242424242');
    expect(skipped.body).toMatchObject({ status: 'succeeded' });
    expect(skipped.body.processor).not.toBe('stripe');
    expect(stripe.ledger().length).toBe(calls);

    const metrics = await gw.call('GET', '/metrics');
    expect(metrics.text).toMatch(new RegExp(`svc_processor_circuit_state\\{connection_id="${stripeId}"\\} 2`));

    gw.clock.advance(COOL_DOWN_SECONDS - 1);
    expect(await healthOf(m, stripeId)).toBe('open');
    gw.clock.advance(1);
    const probe = await payH2h(m, '4242424242424242');
    expect(probe.body).toMatchObject({ status: 'succeeded', processor: 'stripe' });
    expect(await healthOf(m, stripeId)).toBe('ok');
  });

  it('answers PROCESSOR_UNAVAILABLE without creating a payment when every connection is open', async () => {
    const m = await merchantWith(stripeConnection(['h2h'], 10));
    stripe.next({ match: 'POST /v1/payment_methods', status: 503 }, FAILURES_TO_OPEN);
    for (let i = 0; i < FAILURES_TO_OPEN; i++) await payH2h(m, '4242424242424242');
    const id = await createRequest(gw, m);
    const refused = await gw.call('POST', PATHS.h2h(id), { apiKey: m.apiKey, body: h2hCard('4242424242424242') });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: 'PROCESSOR_UNAVAILABLE', details: { reason: 'circuit_open' } });
    const request = await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey });
    expect(request.body.status).toBe('open');
  });
});

describe('live mode', () => {
  it('refuses a live payment with no live connection, never using the sandbox', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const id = await createRequest(gw, m, 10.5, 'EUR', m.liveKey);
    const refused = await gw.call('POST', PATHS.h2h(id), { apiKey: m.liveKey, body: h2hCard('4242424242424242') });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      error: 'INSUFFICIENT_PERMISSIONS',
      details: { reason: 'no_live_connection', slot: 'h2h' },
    });
  });

  it('pays live through a live connection only, never a test one', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body: sandboxConnection(['h2h']) });
    const connected = await gw.call('POST', '/processor-connections', {
      apiKey: m.liveKey,
      body: stripeConnection(['h2h'], 0, 'sk_live_simulator'),
    });
    expect(connected.status, connected.text).toBe(201);
    const id = await createRequest(gw, m, 10.5, 'EUR', m.liveKey);
    // The gateway's Stripe base is the test simulator, which refuses a live key: the attempt went to the
    // live connection (and failed there, charging nothing), not to the test mode's sandbox.
    await gw.call('POST', PATHS.h2h(id), { apiKey: m.liveKey, body: h2hCard('4242424242424242') });
    const attempts = await gw.call('GET', `/payments?paymentRequestId=${id}`, { apiKey: m.liveKey });
    expect(attempts.body.data).toMatchObject([{ processor: 'stripe', status: 'failed' }]);
    expect(stripe.ledger().some((e) => e.reference === `pay_${attempts.body.data[0].paymentId}`)).toBe(false);
  });
});
