import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { Agent, fetch as fetchWithAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdyenSimulator,
  HOLDER_NAME_REFUSALS,
  startAdyenSimulator,
  totalsFor,
} from '../../simulators/adyen/index.js';
import { AppError } from '../../src/errors.js';
import {
  ADYEN_WEBHOOK_ANSWER,
  type AdyenConnectorOptions,
  type AdyenProcessor,
  createAdyenConnector,
  verifyAdyenWebhook,
} from '../../src/processors/adyen/index.js';
import type { AuthorizeInput } from '../../src/processors/types.js';
import { startReceiver } from '../simulators/receiver.js';
import { selfSignedCertificate } from '../helpers/tls.js';

// The Adyen connector, with the official SDK inside it, against the Adyen contract simulator over
// real HTTPS: every exchange is held to Adyen's OpenAPI documents (violations stay empty).

const MERCHANT = 'GatewayMerchantECOM';
const RETURN_URL = 'https://gateway.example/payments/return';

let sim: AdyenSimulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tls: ReturnType<typeof selfSignedCertificate>;
let browser: Agent;
let adyen: AdyenProcessor;
/** The same connection with a short time-out, for the calls the simulator holds. */
let impatient: AdyenProcessor;

const connect = (over: Partial<AdyenConnectorOptions> = {}) =>
  createAdyenConnector({
    credentials: { apiKey: sim.apiKey, merchantAccount: MERCHANT },
    apiBase: sim.url,
    timeoutMs: 10_000,
    unverifiedTls: true,
    ...over,
  });

beforeAll(async () => {
  tls = selfSignedCertificate();
  browser = new Agent({ connect: { ca: readFileSync(tls.certFile) } });
  receiver = await startReceiver(ADYEN_WEBHOOK_ANSWER);
  sim = await startAdyenSimulator({
    tls: { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) },
    webhookUrl: receiver.url,
  });
  adyen = connect();
  impatient = connect({ timeoutMs: 1500 });
});

afterAll(async () => {
  await adyen?.close();
  await impatient?.close();
  await sim?.close();
  await receiver?.close();
  await browser?.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

afterEach(async () => {
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

const newReference = () => `pay_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

const authorization = (
  reference: string,
  over: { holder?: string; number?: string; capture?: boolean; amount?: number } = {},
): AuthorizeInput => ({
  reference,
  amount: over.amount ?? 1000,
  currency: 'EUR',
  capture: over.capture ?? true,
  card: {
    number: over.number ?? '4111111111111111',
    expMonth: 3,
    expYear: 2030,
    cvv: '737',
    holder: over.holder ?? 'Jane Shopper',
  },
  threeDS: { force: false, returnUrl: RETURN_URL },
});

const ledgerOf = (reference: string) => totalsFor(sim.ledger(), reference);

/** The notifications the receiver got for a reference, each verified and mapped by the connector's function. */
async function eventsFor(reference: string) {
  await sim.webhooksSettled();
  return receiver.received
    .filter((r) => r.body.includes(`"merchantReference":"${reference}"`))
    .flatMap((r) => verifyAdyenWebhook(r.body, r.headers, sim.hmacKey));
}

/** The payer on the simulator's 3-D Secure page: approve or deny, then back to the return URL. */
async function payerAnswers(challengeUrl: string, action: 'approve' | 'deny'): Promise<URL> {
  const page = await fetchWithAgent(challengeUrl, { dispatcher: browser });
  expect(await page.text()).toContain('3-D Secure');
  const answer = await fetchWithAgent(challengeUrl, {
    method: 'POST',
    body: new URLSearchParams({ action }),
    redirect: 'manual',
    dispatcher: browser,
  });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location') as string);
}

/** A payment as Processor's follow-ups name it (the authorizations here are in EUR). */
const atAdyen = (reference: string, processorPaymentId: string) => ({
  processorPaymentId,
  reference,
  currency: 'EUR',
  capture: true,
});

describe('Adyen connector: authorizations', () => {
  it('approves and captures at once, with our reference on the payment', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference));
    expect(outcome).toMatchObject({ kind: 'approved', captured: true });
    const [payment] = sim.ledger().filter((p) => p.reference === reference);
    expect(outcome).toMatchObject({ processorPaymentId: payment.id });
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, authorised: 1000, captured: 1000 });
    expect(await eventsFor(reference)).toMatchObject([
      { eventCode: 'AUTHORISATION', outcome: 'succeeded', processorPaymentId: payment.id, reference, amount: 1000 },
    ]);
    expect(sim.webhooks.at(-1)?.answer).toBe(ADYEN_WEBHOOK_ANSWER);
  });

  // Every refusal Adyen's test environment plays, and the gateway's code each maps to.
  const expected: Record<string, string> = {
    NOT_ENOUGH_BALANCE: '51',
    CARD_EXPIRED: '54',
    BLOCK_CARD: '57',
    NOT_SUPPORTED: '57',
  };
  it.each(Object.entries(HOLDER_NAME_REFUSALS))(
    'declines holder name %s with the mapped code, charging nothing',
    async (holder, refusal) => {
      const reference = newReference();
      const code = expected[holder] ?? '05';
      const outcome = await adyen.authorize(authorization(reference, { holder }));
      expect(outcome).toMatchObject({ kind: 'declined', declineCode: code });
      expect(outcome).toMatchObject({ declineReason: expect.stringContaining(refusal.refusalReason) as string });
      expect(ledgerOf(reference)).toMatchObject({ payments: 1, authorised: 0, captured: 0 });
      expect(await eventsFor(reference)).toMatchObject([
        { eventCode: 'AUTHORISATION', outcome: 'failed', success: false, declineCode: code },
      ]);
    },
  );

  it.each([
    ['approve', { kind: 'approved', captured: true }, 1000],
    ['deny', { kind: 'declined', declineCode: '05', declineReason: 'do not honor (3D Not Authenticated)' }, 0],
  ] as const)('3-D Secure: the payer can %s, and the return completes the payment', async (action, result, charged) => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { number: '4917610000000000' }));
    expect(outcome).toMatchObject({ kind: 'challenge', challengeUrl: expect.stringContaining('/3ds/') as string });
    if (outcome.kind !== 'challenge') return;
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, captured: 0 });
    const back = await payerAnswers(outcome.challengeUrl, action);
    expect(back.origin + back.pathname).toBe(RETURN_URL);
    const completed = await adyen.completeChallenge(atAdyen(reference, outcome.processorPaymentId), {
      redirectResult: back.searchParams.get('redirectResult') ?? undefined,
    });
    expect(completed).toMatchObject(result);
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, captured: charged });
  });

  it("refuses a forged return without blocking the payer's real one", async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { number: '5454545454545454' }));
    if (outcome.kind !== 'challenge') throw new Error(`no challenge: ${outcome.kind}`);
    const forged = await adyen.completeChallenge(atAdyen(reference, outcome.processorPaymentId), {
      redirectResult: 'forged',
    });
    expect(forged).toMatchObject({ kind: 'error', retryable: false });
    expect(await adyen.completeChallenge(atAdyen(reference, outcome.processorPaymentId), {})).toMatchObject({
      kind: 'error',
    });
    const back = await payerAnswers(outcome.challengeUrl, 'approve');
    const redirectResult = back.searchParams.get('redirectResult') ?? undefined;
    const completed = await adyen.completeChallenge(atAdyen(reference, outcome.processorPaymentId), { redirectResult });
    expect(completed).toMatchObject({ kind: 'approved' });
    // The same return again (a reload) is replayed under the same key: still one payment.
    expect(await adyen.completeChallenge(atAdyen(reference, outcome.processorPaymentId), { redirectResult })).toEqual(
      completed,
    );
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, captured: 1000 });
  });

  it('reaches a live connection through apiBase (the live URL the SDK builds is rerouted too)', async () => {
    const live = connect({
      credentials: {
        apiKey: sim.apiKey,
        merchantAccount: MERCHANT,
        environment: 'live',
        liveUrlPrefix: '1797a841fbb37ca7-GatewayCompany',
      },
    });
    const reference = newReference();
    expect(await live.authorize(authorization(reference))).toMatchObject({ kind: 'approved' });
    expect(ledgerOf(reference)).toMatchObject({ payments: 1 });
    await live.close();
  });
});

describe('Adyen connector: modifications', () => {
  it('authorizes only, then captures later (received now, CAPTURE notification after)', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { capture: false }));
    expect(outcome).toMatchObject({ kind: 'approved', captured: false });
    if (outcome.kind !== 'approved') return;
    expect(ledgerOf(reference)).toMatchObject({ authorised: 1000, captured: 0 });
    await adyen.capture(atAdyen(reference, outcome.processorPaymentId), 1000);
    expect(ledgerOf(reference)).toMatchObject({ captured: 1000 });
    const capture = (await eventsFor(`${reference}-capture-1000`))[0];
    expect(capture).toMatchObject({
      eventCode: 'CAPTURE',
      success: true,
      processorPaymentId: outcome.processorPaymentId,
    });
  });

  it('captures part of an authorization with the currency given explicitly', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { capture: false }));
    if (outcome.kind !== 'approved') throw new Error(`not approved: ${outcome.kind}`);
    const other = connect();
    const receipt = await other.capturePayment({
      processorPaymentId: outcome.processorPaymentId,
      reference: `${reference}-capture`,
      amount: { value: 600, currency: 'EUR' },
    });
    expect(receipt).toMatchObject({
      status: 'received',
      pspReference: expect.stringMatching(/^[A-Z0-9]{16}$/) as string,
    });
    expect(ledgerOf(reference)).toMatchObject({ authorised: 1000, captured: 600 });
    // Processor's capture names the payment with its currency: any instance can capture, none twice.
    await other.capture(atAdyen(reference, outcome.processorPaymentId), 400);
    expect(ledgerOf(reference)).toMatchObject({ authorised: 1000, captured: 1000 });
    await other.close();
  });

  it('voids an authorization (CANCELLATION notification)', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { capture: false }));
    if (outcome.kind !== 'approved') throw new Error(`not approved: ${outcome.kind}`);
    await adyen.void(atAdyen(reference, outcome.processorPaymentId));
    expect(ledgerOf(reference)).toMatchObject({ authorised: 0, captured: 0 });
    expect(await eventsFor(`${reference}-cancel`)).toMatchObject([
      { eventCode: 'CANCELLATION', success: true, outcome: 'unknown', processorPaymentId: outcome.processorPaymentId },
    ]);
  });

  it('refunds part, then the rest; a retried refund refunds once; one above the capture fails in its notification', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference));
    if (outcome.kind !== 'approved') throw new Error(`not approved: ${outcome.kind}`);
    const id = outcome.processorPaymentId;
    const at = atAdyen(reference, id);
    const first = await adyen.refund(at, 300, `${reference}-r1`);
    expect(first).toMatchObject({ status: 'pending' });
    const again = await adyen.refund(at, 300, `${reference}-r1`);
    expect(again.refundId).toBe(first.refundId);
    await adyen.refund(at, 700, `${reference}-r2`);
    expect(ledgerOf(reference)).toMatchObject({ captured: 1000, refunded: 1000 });
    await adyen.refund(at, 1, `${reference}-r3`);
    expect(ledgerOf(reference)).toMatchObject({ refunded: 1000 });
    const refunds = [
      ...(await eventsFor(`${reference}-r1`)),
      ...(await eventsFor(`${reference}-r2`)),
      ...(await eventsFor(`${reference}-r3`)),
    ];
    expect(refunds.map((e) => [e.eventCode, e.outcome, e.amount, e.processorPaymentId])).toEqual([
      ['REFUND', 'refunded', 300, id],
      ['REFUND', 'refunded', 700, id],
      ['REFUND', 'unknown', 1, id],
    ]);
    expect(refunds[0].pspReference).toBe(first.refundId);
    expect(refunds[2]).toMatchObject({ success: false, reason: 'Insufficient balance on payment' });
  });
});

describe('Adyen connector: failures and reconciliation', () => {
  it.each([500, 503, 429])('answers %s as a retryable error, nothing charged', async (status) => {
    const reference = newReference();
    sim.next({ match: 'POST /payments', status, ...(status === 429 ? { retryAfterSeconds: 1 } : {}) });
    const outcome = await adyen.authorize(authorization(reference));
    expect(outcome).toMatchObject({ kind: 'error', retryable: true });
    expect(ledgerOf(reference)).toMatchObject({ payments: 0 });
  });

  it('answers an unreachable processor as a retryable error', async () => {
    const closed = connect({ apiBase: 'https://127.0.0.1:9' });
    const reference = newReference();
    expect(await closed.authorize(authorization(reference))).toMatchObject({ kind: 'error', retryable: true });
    expect(ledgerOf(reference)).toMatchObject({ payments: 0 });
    await closed.close();
  });

  it('refuses a wrong API key without retrying elsewhere', async () => {
    const wrong = connect({ credentials: { apiKey: 'AQE_wrong', merchantAccount: MERCHANT } });
    const reference = newReference();
    expect(await wrong.authorize(authorization(reference))).toMatchObject({ kind: 'error', retryable: false });
    await wrong.close();
  });

  // Adyen's Checkout API cannot find a payment by our reference, and the connector keeps no request
  // to send again (card data is never kept): queryStatus leaves the payment pending, and the
  // AUTHORISATION notification, which names our reference, settles it.
  const stillPending = (reference: string) => ({ processorPaymentId: reference, status: 'pending' });

  it('times out on a held call it never charged: pending, no notification, and a retry charges once', async () => {
    const reference = newReference();
    sim.next({ match: 'POST /payments', hang: true });
    expect(await impatient.authorize(authorization(reference))).toEqual({ kind: 'timeout' });
    expect(ledgerOf(reference)).toMatchObject({ payments: 0 });
    expect(await impatient.queryStatus(reference)).toEqual(stillPending(reference));
    expect(await eventsFor(reference)).toEqual([]);
    // The gateway sending the same authorization again: the first never arrived, so this one pays.
    const retried = await impatient.authorize(authorization(reference));
    expect(retried).toMatchObject({ kind: 'approved', captured: true });
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, captured: 1000 });
  });

  it.each([
    ['held past the time-out', { hang: true }],
    ['cut off', { reset: true }],
    ['answered 504 by a hop in between', { status: 504 }],
  ])(
    'an ambiguous call the processor DID charge (%s) is a timeout, pending, settled by its AUTHORISATION notification',
    async (_, fault) => {
      const reference = newReference();
      sim.next({ match: 'POST /payments', processed: true, ...fault });
      expect(await impatient.authorize(authorization(reference, { capture: false }))).toEqual({ kind: 'timeout' });
      expect(await impatient.queryStatus(reference)).toEqual(stillPending(reference));
      const [payment] = sim.ledger().filter((p) => p.reference === reference);
      expect(await eventsFor(reference)).toMatchObject([
        {
          eventCode: 'AUTHORISATION',
          success: true,
          outcome: 'succeeded',
          processorPaymentId: payment.id,
          reference,
          amount: 1000,
        },
      ]);
      // The gateway sending the same authorization again gets Adyen's answer replayed, not a payment.
      expect(await impatient.authorize(authorization(reference, { capture: false }))).toEqual({
        kind: 'approved',
        processorPaymentId: payment.id,
        captured: false,
      });
      expect(await eventsFor(reference)).toHaveLength(1);
      expect(ledgerOf(reference)).toMatchObject({ payments: 1, authorised: 1000, captured: 0 });
    },
  );

  it('leaves a declined ambiguous call pending until its AUTHORISATION notification declines it', async () => {
    const reference = newReference();
    sim.next({ match: 'POST /payments', processed: true, hang: true });
    expect(await impatient.authorize(authorization(reference, { holder: 'NOT_ENOUGH_BALANCE' }))).toEqual({
      kind: 'timeout',
    });
    expect(await impatient.queryStatus(reference)).toEqual(stillPending(reference));
    expect(await eventsFor(reference)).toMatchObject([
      { eventCode: 'AUTHORISATION', success: false, outcome: 'failed', reference, declineCode: '51' },
    ]);
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, authorised: 0 });
  });

  it('answers a reference Adyen already holds with other details (704) as unknown, never as a new payment', async () => {
    const reference = newReference();
    expect(await adyen.authorize(authorization(reference))).toMatchObject({ kind: 'approved' });
    expect(await adyen.authorize(authorization(reference, { amount: 1200 }))).toEqual({ kind: 'timeout' });
    expect(ledgerOf(reference)).toMatchObject({ payments: 1, authorised: 1000 });
  });

  it('answers queryStatus pending for any reference, never null (that would fail a payment Adyen may have charged)', async () => {
    const reference = newReference();
    expect(await adyen.queryStatus(reference)).toEqual(stillPending(reference));
    const other = connect();
    expect(await other.queryStatus(reference)).toEqual(stillPending(reference));
    await other.close();
  });

  it('fails a capture Adyen refuses to take with a ProcessorCallError', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference, { capture: false }));
    if (outcome.kind !== 'approved') throw new Error(`not approved: ${outcome.kind}`);
    sim.next({ match: '/captures', status: 500 });
    await expect(adyen.capture(atAdyen(reference, outcome.processorPaymentId), 1000)).rejects.toMatchObject({
      status: 500,
    });
    expect(ledgerOf(reference)).toMatchObject({ captured: 0 });
  });
});

describe('Adyen connector: notifications', () => {
  it('verifies a good signature, refuses a tampered body and a wrong key', async () => {
    const reference = newReference();
    await adyen.authorize(authorization(reference));
    await sim.webhooksSettled();
    const delivery = receiver.received.find((r) => r.body.includes(reference));
    if (!delivery) throw new Error('no notification');
    expect(verifyAdyenWebhook(delivery.body, delivery.headers, sim.hmacKey)).toHaveLength(1);
    const tampered = delivery.body.replace('"value":1000', '"value":1');
    expect(() => verifyAdyenWebhook(tampered, delivery.headers, sim.hmacKey)).toThrow(AppError);
    const wrongKey = 'AB'.repeat(32);
    expect(() => verifyAdyenWebhook(delivery.body, delivery.headers, wrongKey)).toThrow(
      expect.objectContaining({ error: 'INVALID_WEBHOOK_SIGNATURE' }),
    );
    const unsigned = JSON.parse(delivery.body) as {
      notificationItems: [{ NotificationRequestItem: { additionalData?: unknown } }];
    };
    delete unsigned.notificationItems[0].NotificationRequestItem.additionalData;
    expect(() => verifyAdyenWebhook(JSON.stringify(unsigned), delivery.headers, sim.hmacKey)).toThrow(AppError);
    expect(() => verifyAdyenWebhook('not json', delivery.headers, sim.hmacKey)).toThrow(AppError);
  });

  it('names a duplicate delivery with the same eventId, so the receiver takes it once', async () => {
    const reference = newReference();
    sim.duplicateWebhooks(true);
    try {
      await adyen.authorize(authorization(reference));
      const events = await eventsFor(reference);
      expect(events).toHaveLength(2);
      expect(events[1]).toEqual(events[0]);
      expect(new Set(events.map((e) => e.eventId)).size).toBe(1);
    } finally {
      sim.duplicateWebhooks(false);
    }
  });

  it('maps a CHARGEBACK to a chargeback event; parseCallback reads a verified item the same way', async () => {
    const reference = newReference();
    const outcome = await adyen.authorize(authorization(reference));
    if (outcome.kind !== 'approved') throw new Error(`not approved: ${outcome.kind}`);
    sim.chargeback(outcome.processorPaymentId);
    const chargeback = (await eventsFor(reference)).find((e) => e.eventCode === 'CHARGEBACK');
    expect(chargeback).toMatchObject({
      outcome: 'chargeback',
      processorPaymentId: outcome.processorPaymentId,
      amount: 1000,
    });
    const delivery = receiver.received.find((r) => r.body.includes('CHARGEBACK') && r.body.includes(reference));
    const item = (
      JSON.parse(delivery!.body) as { notificationItems: [{ NotificationRequestItem: Record<string, unknown> }] }
    ).notificationItems[0].NotificationRequestItem;
    expect(
      adyen.parseCallback({
        eventId: 'e1',
        transactionId: outcome.processorPaymentId,
        status: 'CHARGEBACK',
        amount: 1000,
        currency: 'EUR',
        timestamp: new Date().toISOString(),
        providerData: item,
      }),
    ).toMatchObject({ outcome: 'chargeback', reference });
  });
});
