import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  callbackOf,
  createStripeConnector,
  gatewayDecline,
  memoryJournal,
  parseStripeCallback,
  STRIPE_DECLINE_CODES,
  type StripeConnector,
  StripeWebhookSignatureError,
  verifyStripeWebhook,
} from '../../src/processors/stripe/index.js';
import { DECLINE_REASONS } from '../../src/processors/decline-codes.js';
import { type AuthorizeInput, ProcessorCallError } from '../../src/processors/types.js';
import { type StripeSimulator, startStripeSimulator, totalsFor } from '../../simulators/stripe/index.js';
import { startReceiver } from '../simulators/receiver.js';

// The Stripe connector (the official SDK inside) over real HTTP to the contract simulator, which
// holds every request, answer and event to Stripe's OpenAPI document.

let sim: StripeSimulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let stripe: StripeConnector;

const TIMEOUT_MS = 600;

beforeAll(async () => {
  receiver = await startReceiver('ok');
  sim = await startStripeSimulator({ webhookUrl: receiver.url });
  stripe = createStripeConnector({ credentials: { secretKey: sim.apiKey }, apiBase: sim.url, timeoutMs: TIMEOUT_MS });
});

afterAll(async () => {
  await sim?.close();
  await receiver?.close();
});

afterEach(async () => {
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

const RETURN_URL = 'https://gateway.example/payments/return';

const payment = (number: string, overrides: Partial<AuthorizeInput> = {}): AuthorizeInput => ({
  reference: `pay_${randomUUID()}`,
  amount: 2000,
  currency: 'EUR',
  capture: true,
  card: { number, expMonth: 12, expYear: 2034, cvv: '123', holder: 'Ada Lovelace' },
  threeDS: { force: false, returnUrl: RETURN_URL },
  ...overrides,
});

const charged = (reference: string) => totalsFor(sim.ledger(), reference);
const intentOf = (reference: string) => sim.ledger().filter((e) => e.reference === reference);

/** The payer's answer on the simulator's 3-D Secure page; the browser's way back to the gateway. */
async function answerChallenge(challengeUrl: string, action: 'approve' | 'deny'): Promise<Record<string, string>> {
  const answer = await fetch(challengeUrl, {
    method: 'POST',
    body: new URLSearchParams({ action }),
    redirect: 'manual',
  });
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get('location') as string);
  expect(back.origin + back.pathname).toBe(RETURN_URL);
  return Object.fromEntries(back.searchParams);
}

/** Every delivery so far, verified and read by the connector. */
async function deliveredEvents() {
  await sim.webhooksSettled();
  return receiver.received.flatMap((r) => verifyStripeWebhook(r.body, r.headers, sim.webhookSecret));
}

/** A payment as Processor's follow-ups name it. */
const atStripe = (reference: string, processorPaymentId: string) => ({
  processorPaymentId,
  reference,
  currency: 'eur',
  capture: false,
});

describe('Stripe connector: authorization', () => {
  it('approves and captures, with the reference as description and metadata, charging once', async () => {
    const input = payment('4242424242424242');
    const outcome = await stripe.authorize(input);
    expect(outcome).toMatchObject({ kind: 'approved', captured: true });
    expect(charged(input.reference)).toEqual({ payments: 1, authorised: 2000, captured: 2000, refunded: 0 });
    // The gateway retrying the same payment replays Stripe's answers: still one charge.
    expect(await stripe.authorize(input)).toEqual(outcome);
    expect(charged(input.reference)).toMatchObject({ payments: 1, captured: 2000 });
    const succeeded = (await deliveredEvents()).find(
      (e) => e.eventType === 'payment_intent.succeeded' && e.reference === input.reference,
    );
    expect(succeeded).toMatchObject({ outcome: 'succeeded', amount: 2000, currency: 'eur' });
  });

  it.each([
    ['4000000000000002', 'generic_decline', '05', 'do not honor'],
    ['4000000000009995', 'insufficient_funds', '51', 'insufficient funds'],
    ['4000000000009987', 'lost_card', '05', 'do not honor'],
    ['4000000000009979', 'stolen_card', '05', 'do not honor'],
    ['4000000000000069', 'expired_card', '54', 'expired card'],
    ['4000000000000127', 'incorrect_cvc', '05', 'do not honor'],
  ])('declines %s (%s) as %s %s, nothing charged', async (number, _stripeCode, declineCode, declineReason) => {
    const input = payment(number);
    const outcome = await stripe.authorize(input);
    expect(outcome).toEqual({
      kind: 'declined',
      processorPaymentId: expect.stringMatching(/^pi_/),
      declineCode,
      declineReason,
    });
    expect(charged(input.reference)).toMatchObject({ payments: 1, authorised: 0, captured: 0 });
    expect(await stripe.queryStatus(input.reference)).toMatchObject({ status: 'declined', declineCode });
  });

  it('maps every decline code Stripe documents to one of the gateway codes, any other to 05', () => {
    for (const [stripeCode, code] of Object.entries(STRIPE_DECLINE_CODES)) {
      expect(gatewayDecline(stripeCode)).toEqual({ declineCode: code, declineReason: DECLINE_REASONS[code] });
    }
    expect(gatewayDecline('transaction_not_allowed')).toEqual({
      declineCode: '57',
      declineReason: 'transaction not permitted',
    });
    expect(gatewayDecline('card_velocity_exceeded')).toEqual({
      declineCode: '61',
      declineReason: 'exceeds withdrawal limit',
    });
    expect(gatewayDecline('a_code_stripe_adds_later')).toEqual({ declineCode: '05', declineReason: 'do not honor' });
    expect(gatewayDecline(undefined).declineCode).toBe('05');
  });

  it('answers a 3-D Secure redirect as a challenge; the approved return completes it', async () => {
    const input = payment('4000002760003184', { capture: false });
    const outcome = await stripe.authorize(input);
    if (outcome.kind !== 'challenge') throw new Error(`expected a challenge, got ${outcome.kind}`);
    expect(outcome.challengeUrl.startsWith(sim.url)).toBe(true);
    expect(await stripe.queryStatus(input.reference)).toMatchObject({ status: 'challenge' });
    const back = await answerChallenge(outcome.challengeUrl, 'approve');
    expect(back).toMatchObject({ payment_intent: outcome.processorPaymentId, redirect_status: 'succeeded' });
    expect(await stripe.completeChallenge(atStripe(input.reference, outcome.processorPaymentId), back)).toEqual({
      kind: 'approved',
      processorPaymentId: outcome.processorPaymentId,
      captured: false,
    });
    expect(charged(input.reference)).toMatchObject({ payments: 1, authorised: 2000, captured: 0 });
  });

  it('declines a denied 3-D Secure challenge with 05 and its reason, whatever the browser claims', async () => {
    const input = payment('4000002760003184');
    const outcome = await stripe.authorize(input);
    if (outcome.kind !== 'challenge') throw new Error(`expected a challenge, got ${outcome.kind}`);
    const back = await answerChallenge(outcome.challengeUrl, 'deny');
    expect(back.redirect_status).toBe('failed');
    const forged = { ...back, redirect_status: 'succeeded' };
    expect(await stripe.completeChallenge(atStripe(input.reference, outcome.processorPaymentId), forged)).toEqual({
      kind: 'declined',
      processorPaymentId: outcome.processorPaymentId,
      declineCode: '05',
      declineReason: '3-D Secure authentication failed',
    });
    expect(
      await stripe.completeChallenge(atStripe(input.reference, outcome.processorPaymentId), {
        payment_intent: 'pi_other',
      }),
    ).toMatchObject({
      kind: 'error',
      retryable: false,
    });
    expect(charged(input.reference)).toMatchObject({ authorised: 0, captured: 0 });
  });

  it('keeps the document when the gateway forces 3-D Secure (the simulator does not play it)', async () => {
    const input = payment('4242424242424242', { threeDS: { force: true, returnUrl: RETURN_URL } });
    expect(await stripe.authorize(input)).toMatchObject({ kind: 'approved' });
  });

  it('refuses a payment without a card as a non-retryable error, calling nobody', async () => {
    const input = payment('4242424242424242', { card: undefined, wallet: { token: 't', walletType: 'x' } });
    expect(await stripe.authorize(input)).toMatchObject({ kind: 'error', retryable: false });
    expect(charged(input.reference).payments).toBe(0);
  });
});

describe('Stripe connector: capture, void, refunds', () => {
  it('authorizes only, then captures part later', async () => {
    const input = payment('4242424242424242', { capture: false });
    const outcome = await stripe.authorize(input);
    if (outcome.kind !== 'approved') throw new Error(`expected approved, got ${outcome.kind}`);
    expect(outcome.captured).toBe(false);
    expect(await stripe.queryStatus(input.reference)).toMatchObject({ status: 'approved' });
    expect(charged(input.reference)).toMatchObject({ authorised: 2000, captured: 0 });
    await stripe.capture(atStripe(input.reference, outcome.processorPaymentId), 1500);
    // The gateway's retry of the same capture replays it.
    await stripe.capture(atStripe(input.reference, outcome.processorPaymentId), 1500);
    expect(charged(input.reference)).toMatchObject({ payments: 1, authorised: 2000, captured: 1500 });
    expect(await stripe.queryStatus(input.reference)).toMatchObject({ status: 'captured' });
    await expect(stripe.capture(atStripe(input.reference, outcome.processorPaymentId), 500)).rejects.toBeInstanceOf(
      ProcessorCallError,
    );
  });

  it('voids an authorization, which then cannot be captured', async () => {
    const input = payment('4242424242424242', { capture: false });
    const outcome = await stripe.authorize(input);
    if (outcome.kind !== 'approved') throw new Error(`expected approved, got ${outcome.kind}`);
    await stripe.void(atStripe(input.reference, outcome.processorPaymentId));
    await stripe.void(atStripe(input.reference, outcome.processorPaymentId));
    expect(intentOf(input.reference)).toMatchObject([{ status: 'canceled', captured: 0 }]);
    expect(await stripe.queryStatus(input.reference)).toMatchObject({ status: 'voided' });
    const refused = await stripe
      .capture(atStripe(input.reference, outcome.processorPaymentId), 2000)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProcessorCallError);
    expect((refused as ProcessorCallError).status).toBe(400);
  });

  it('refunds in part, then the rest; a refund reference refunds once; never above the capture', async () => {
    const input = payment('4242424242424242');
    const outcome = await stripe.authorize(input);
    if (outcome.kind !== 'approved') throw new Error(`expected approved, got ${outcome.kind}`);
    const partial = await stripe.refund(
      atStripe(input.reference, outcome.processorPaymentId),
      500,
      `rf_${randomUUID()}`,
    );
    expect(partial).toEqual({ refundId: expect.stringMatching(/^re_/), status: 'succeeded' });
    const restReference = `rf_${randomUUID()}`;
    const rest = await stripe.refund(atStripe(input.reference, outcome.processorPaymentId), 1500, restReference);
    expect(await stripe.refund(atStripe(input.reference, outcome.processorPaymentId), 1500, restReference)).toEqual(
      rest,
    );
    expect(charged(input.reference)).toMatchObject({ payments: 1, captured: 2000, refunded: 2000 });
    await expect(
      stripe.refund(atStripe(input.reference, outcome.processorPaymentId), 1, `rf_${randomUUID()}`),
    ).rejects.toBeInstanceOf(ProcessorCallError);
    const refunds = (await deliveredEvents()).filter(
      (e) => e.outcome === 'refunded' && e.processorPaymentId === outcome.processorPaymentId,
    );
    expect(new Set(refunds.map((e) => e.refundId))).toEqual(new Set([partial.refundId, rest.refundId]));
    expect(refunds.find((e) => e.refundId === rest.refundId)).toMatchObject({ reference: restReference, amount: 1500 });
  });
});

describe('Stripe connector: failures', () => {
  it.each([
    ['a 503 on the PaymentMethod', { match: 'POST /v1/payment_methods', status: 503 }],
    ['a 429 on the PaymentIntent create', { match: 'POST /v1/payment_intents', status: 429, retryAfterSeconds: 1 }],
    ['a 500 on the confirmation', { match: '/confirm', status: 500 }],
    ['a 429 on the confirmation', { match: '/confirm', status: 429 }],
  ])('answers %s with a retryable error, nothing charged', async (_what, fault) => {
    sim.next(fault);
    const input = payment('4242424242424242');
    expect(await stripe.authorize(input)).toMatchObject({ kind: 'error', retryable: true });
    expect(charged(input.reference)).toMatchObject({ authorised: 0, captured: 0 });
    // What Stripe holds cannot be charged any more, and the reconciliation says nothing happened.
    expect(intentOf(input.reference).filter((e) => e.status !== 'canceled')).toEqual([]);
    expect(await stripe.queryStatus(input.reference)).toBeNull();
  });

  it('takes a refused connection (nothing sent) as a retryable error', async () => {
    const closed = await startStripeSimulator();
    const url = closed.url;
    await closed.close();
    const nowhere = createStripeConnector({
      credentials: { secretKey: sim.apiKey },
      apiBase: url,
      timeoutMs: TIMEOUT_MS,
    });
    expect(await nowhere.authorize(payment('4242424242424242'))).toMatchObject({ kind: 'error', retryable: true });
  });

  it('answers a confirmation left unanswered with timeout; queryStatus finds it never ran and stops it', async () => {
    sim.next({ match: '/confirm', hang: true });
    const input = payment('4242424242424242');
    expect(await stripe.authorize(input)).toEqual({ kind: 'timeout' });
    expect(await stripe.queryStatus(input.reference)).toBeNull();
    expect(intentOf(input.reference)).toMatchObject([{ status: 'canceled', authorised: 0, captured: 0 }]);
  });

  it('answers a charge whose answer was lost with timeout; queryStatus finds it charged exactly once', async () => {
    sim.next({ match: '/confirm', hang: true, processed: true });
    const input = payment('4242424242424242');
    expect(await stripe.authorize(input)).toEqual({ kind: 'timeout' });
    expect(charged(input.reference)).toEqual({ payments: 1, authorised: 2000, captured: 2000, refunded: 0 });
    const status = await stripe.queryStatus(input.reference);
    expect(status).toEqual({ processorPaymentId: intentOf(input.reference)[0].id, status: 'captured' });
    // Asked again, or the authorization sent again: the same PaymentIntent, still one charge.
    expect(await stripe.queryStatus(input.reference)).toEqual(status);
    expect(await stripe.authorize(input)).toMatchObject({
      kind: 'approved',
      processorPaymentId: status?.processorPaymentId,
    });
    expect(charged(input.reference)).toMatchObject({ payments: 1, captured: 2000 });
  });

  it('finds a PaymentIntent whose create went unanswered by replaying the create', async () => {
    sim.next({ match: 'POST /v1/payment_intents', hang: true, processed: true });
    const input = payment('4242424242424242');
    // Nothing was confirmed, so nothing can be charged: safe to try elsewhere.
    expect(await stripe.authorize(input)).toMatchObject({ kind: 'error', retryable: true });
    expect(intentOf(input.reference)).toMatchObject([{ status: 'requires_confirmation' }]);
    expect(await stripe.queryStatus(input.reference)).toBeNull();
    expect(intentOf(input.reference)).toMatchObject([{ status: 'canceled', authorised: 0 }]);
  });

  it('takes a dropped connection on the confirmation as a timeout', async () => {
    // The SDK sends a request again once when the connection closes, so both attempts are dropped.
    sim.next({ match: '/confirm', reset: true }, 2);
    const input = payment('4242424242424242');
    expect(await stripe.authorize(input)).toEqual({ kind: 'timeout' });
    expect(await stripe.queryStatus(input.reference)).toBeNull();
    expect(charged(input.reference)).toMatchObject({ payments: 1, captured: 0 });
  });

  it('cannot look up a reference it never sent, and says so rather than "never seen"', async () => {
    await expect(stripe.queryStatus(`pay_${randomUUID()}`)).rejects.toBeInstanceOf(ProcessorCallError);
  });

  it('keeps in its journal what it first learnt of an attempt, and only the newest attempts', async () => {
    const journal = memoryJournal(2);
    await journal.note('pay_1', { paymentIntentId: 'pi_first' });
    await journal.note('pay_1', { paymentIntentId: 'pi_second', intentParams: { amount: 100, currency: 'eur' } });
    expect(await journal.read('pay_1')).toEqual({
      paymentIntentId: 'pi_first',
      intentParams: { amount: 100, currency: 'eur' },
    });
    await journal.note('pay_2', {});
    await journal.note('pay_1', {});
    await journal.note('pay_3', {});
    expect(await journal.read('pay_2')).toBeUndefined();
    expect(await journal.read('pay_1')).toBeDefined();
  });

  it('refuses an API base with a path, which the SDK could not honour', () => {
    expect(() =>
      createStripeConnector({
        credentials: { secretKey: 'sk_test_x' },
        apiBase: 'https://proxy.example/stripe',
        timeoutMs: 1000,
      }),
    ).toThrow(/STRIPE_API_BASE/);
  });
});

describe('Stripe connector: webhooks', () => {
  it('verifies events with the SDK and reads outcomes, declines, disputes; duplicates keep their event id', async () => {
    receiver.clear();
    sim.duplicateWebhooks(true);
    let declined: AuthorizeInput;
    let disputed: AuthorizeInput;
    try {
      declined = payment('4000000000009995');
      await stripe.authorize(declined);
      disputed = payment('4000000000000259');
      await stripe.authorize(disputed);
    } finally {
      sim.duplicateWebhooks(false);
    }
    const events = await deliveredEvents();
    const failed = events.filter((e) => e.eventType === 'payment_intent.payment_failed');
    expect(failed).toHaveLength(2);
    expect(failed[0].eventId).toBe(failed[1].eventId);
    expect(failed[0]).toMatchObject({
      outcome: 'failed',
      reference: declined.reference,
      declineCode: '51',
      declineReason: 'insufficient funds',
      amount: 2000,
    });
    const disputedId = intentOf(disputed.reference)[0].id;
    expect(events.find((e) => e.eventType === 'charge.dispute.created')).toMatchObject({
      outcome: 'chargeback',
      processorPaymentId: disputedId,
      disputeId: expect.stringMatching(/^dp_|^du_/),
      amount: 2000,
    });
    // Through the gateway's callback record and back, as the callback pipeline will carry it.
    for (const event of events) {
      const { eventId, eventType, currency, occurredAt, refundId, refundStatus, disputeId, ...provider } = event;
      void [eventId, eventType, currency, occurredAt, refundId, refundStatus, disputeId];
      expect(parseStripeCallback(callbackOf(event))).toEqual({
        declineCode: undefined,
        declineReason: undefined,
        challengeUrl: undefined,
        ...provider,
      });
    }
  });

  it('refuses a tampered body, another secret and a missing signature with a typed error', async () => {
    receiver.clear();
    await stripe.authorize(payment('4242424242424242'));
    await sim.webhooksSettled();
    const [delivery] = receiver.received;
    expect(verifyStripeWebhook(delivery.body, delivery.headers, sim.webhookSecret)).toHaveLength(1);
    const attempts = [
      () => verifyStripeWebhook(delivery.body.replace('2000', '2001'), delivery.headers, sim.webhookSecret),
      () => verifyStripeWebhook(delivery.body, delivery.headers, 'whsec_other'),
      () => verifyStripeWebhook(delivery.body, { 'content-type': 'application/json' }, sim.webhookSecret),
    ];
    for (const attempt of attempts) {
      const error = (() => {
        try {
          attempt();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(StripeWebhookSignatureError);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).error).toBe('INVALID_WEBHOOK_SIGNATURE');
    }
  });
});
