import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StripeSimulator, startStripeSimulator, totalsFor } from '../../simulators/stripe/index.js';
import { startReceiver } from './receiver.js';

// The official SDK against the simulator; every exchange is held to Stripe's OpenAPI document.

let sim: StripeSimulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const sdk = (options: Partial<Stripe.StripeConfig> = {}, key?: string) =>
  new Stripe(key ?? sim.apiKey, {
    host: '127.0.0.1',
    port: Number(new URL(sim.url).port),
    protocol: 'http',
    maxNetworkRetries: 0,
    ...options,
  });

let stripe: Stripe;

beforeAll(async () => {
  receiver = await startReceiver('ok');
  sim = await startStripeSimulator({ webhookUrl: receiver.url });
  stripe = sdk();
});

afterAll(async () => {
  await sim?.close();
  await receiver?.close();
});

afterEach(async () => {
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

const card = async (number: string) =>
  (await stripe.paymentMethods.create({ type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } }))
    .id;

const pay = async (number: string, params: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
  stripe.paymentIntents.create({
    amount: 2000,
    currency: 'eur',
    payment_method: await card(number),
    confirm: true,
    ...params,
  });

/** The events the receiver got, each verified with the SDK's own signature check. */
async function events(): Promise<Stripe.Event[]> {
  await sim.webhooksSettled();
  return receiver.received.map((r) =>
    stripe.webhooks.constructEvent(r.body, String(r.headers['stripe-signature']), sim.webhookSecret),
  );
}

const eventsFor = async (id: string) =>
  (await events()).filter(
    (e) =>
      (e.data.object as { id?: string; payment_intent?: string }).id === id ||
      (e.data.object as { payment_intent?: string }).payment_intent === id,
  );

describe('Stripe simulator through the official SDK', () => {
  it('approves 4242 and captures automatically, with a signed payment_intent.succeeded', async () => {
    const pi = await pay('4242424242424242', { metadata: { reference: 'order-approve' } });
    expect(pi).toMatchObject({ status: 'succeeded', amount_received: 2000, metadata: { reference: 'order-approve' } });
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');
    expect((await eventsFor(pi.id)).map((e) => e.type)).toContain('payment_intent.succeeded');
    expect(totalsFor(sim.ledger(), 'order-approve')).toEqual({
      payments: 1,
      authorised: 2000,
      captured: 2000,
      refunded: 0,
    });
  });

  it.each([
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'card_declined', 'insufficient_funds'],
    ['4000000000009987', 'card_declined', 'lost_card'],
    ['4000000000009979', 'card_declined', 'stolen_card'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc'],
  ])('declines %s with 402 %s / %s and payment_intent.payment_failed', async (number, code, declineCode) => {
    const error = await pay(number).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    const cardError = error as Stripe.errors.StripeCardError;
    expect(cardError).toMatchObject({ statusCode: 402, code, decline_code: declineCode });
    const pi = cardError.payment_intent as Stripe.PaymentIntent;
    expect(pi.status).toBe('requires_payment_method');
    expect(pi.last_payment_error).toMatchObject({ type: 'card_error', code });
    expect((await eventsFor(pi.id)).map((e) => e.type)).toContain('payment_intent.payment_failed');
    expect(sim.ledger().find((e) => e.id === pi.id)).toMatchObject({ authorised: 0, captured: 0 });
  });

  it('plays 3-D Secure: the challenge page approves and redirects the browser to return_url', async () => {
    const pi = await pay('4000002760003184', { capture_method: 'manual', return_url: 'https://shop.example/back' });
    expect(pi.status).toBe('requires_action');
    const url = pi.next_action?.redirect_to_url?.url as string;
    expect(url.startsWith(sim.url)).toBe(true);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('3-D Secure');
    const answer = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ action: 'approve' }),
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location') as string);
    expect(back.origin + back.pathname).toBe('https://shop.example/back');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({
      payment_intent: pi.id,
      redirect_status: 'succeeded',
    });
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('requires_capture');
  });

  it('plays 3-D Secure denied: requires_payment_method with payment_intent_authentication_failure', async () => {
    const pi = await pay('4000002760003184', { return_url: 'https://shop.example/back' });
    const url = pi.next_action?.redirect_to_url?.url as string;
    const answer = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams({ action: 'deny' }),
      redirect: 'manual',
    });
    expect(new URL(answer.headers.get('location') as string).searchParams.get('redirect_status')).toBe('failed');
    const after = await stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe('requires_payment_method');
    expect(after.last_payment_error?.code).toBe('payment_intent_authentication_failure');
    expect((await eventsFor(pi.id)).map((e) => e.type)).toContain('payment_intent.payment_failed');
  });

  it('creates, confirms, then captures part of a manual PaymentIntent; never more than capturable', async () => {
    const created = await stripe.paymentIntents.create({
      amount: 5000,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: await card('4242424242424242'),
    });
    expect(created.status).toBe('requires_confirmation');
    const confirmed = await stripe.paymentIntents.confirm(created.id);
    expect(confirmed).toMatchObject({ status: 'requires_capture', amount_capturable: 5000 });
    const over = await stripe.paymentIntents.capture(created.id, { amount_to_capture: 6000 }).catch((e: unknown) => e);
    expect(over).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const captured = await stripe.paymentIntents.capture(created.id, { amount_to_capture: 3000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 3000, amount_capturable: 0 });
    expect(sim.ledger().find((e) => e.id === created.id)).toMatchObject({ authorised: 5000, captured: 3000 });
  });

  it('cancels an uncaptured PaymentIntent, and then refuses to capture it', async () => {
    const pi = await pay('4242424242424242', { capture_method: 'manual' });
    const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    const error = await stripe.paymentIntents.capture(pi.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect((await eventsFor(pi.id)).map((e) => e.type)).toContain('payment_intent.canceled');
  });

  it('refunds partly, then the rest, and never above the captured amount', async () => {
    const pi = await pay('4242424242424242', { metadata: { reference: 'order-refund' } });
    const partial = await stripe.refunds.create({ payment_intent: pi.id, amount: 500, metadata: { why: 'late' } });
    expect(partial).toMatchObject({ amount: 500, status: 'succeeded', metadata: { why: 'late' } });
    expect((await stripe.refunds.retrieve(partial.id)).amount).toBe(500);
    const tooMuch = await stripe.refunds.create({ payment_intent: pi.id, amount: 1501 }).catch((e: unknown) => e);
    expect(tooMuch).toMatchObject({ statusCode: 400, code: 'amount_too_large' });
    const rest = await stripe.refunds.create({ payment_intent: pi.id });
    expect(rest.amount).toBe(1500);
    const again = await stripe.refunds.create({ payment_intent: pi.id, amount: 1 }).catch((e: unknown) => e);
    expect(again).toMatchObject({ statusCode: 400, code: 'charge_already_refunded' });
    expect(totalsFor(sim.ledger(), 'order-refund')).toMatchObject({ captured: 2000, refunded: 2000 });
    const refundEvents = (await events())
      .filter((e) => ['charge.refunded', 'refund.updated'].includes(e.type))
      .map((e) => (e.data.object as { payment_intent?: string }).payment_intent);
    expect(refundEvents.filter((id) => id === pi.id)).toHaveLength(4);
  });

  it('replays an idempotent request without charging again, and refuses the key with other parameters', async () => {
    const pm = await card('4242424242424242');
    const params = {
      amount: 1200,
      currency: 'eur',
      payment_method: pm,
      confirm: true,
      metadata: { reference: 'order-idem' },
    };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'idem-1' });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: 'idem-1' });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    const other = await stripe.paymentIntents
      .create({ ...params, amount: 1300 }, { idempotencyKey: 'idem-1' })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(totalsFor(sim.ledger(), 'order-idem')).toMatchObject({ payments: 1, captured: 1200 });
  });

  it('signs events so that the SDK verifies them, rejects a tampered one, and can send duplicates', async () => {
    receiver.clear();
    sim.duplicateWebhooks(true);
    try {
      const pi = await pay('4242424242424242');
      const mine = await eventsFor(pi.id);
      expect(mine).toHaveLength(2);
      expect(mine[0].id).toBe(mine[1].id);
      const [first] = receiver.received;
      expect(() =>
        stripe.webhooks.constructEvent(
          first.body.replace('2000', '2001'),
          String(first.headers['stripe-signature']),
          sim.webhookSecret,
        ),
      ).toThrow(Stripe.errors.StripeSignatureVerificationError);
    } finally {
      sim.duplicateWebhooks(false);
    }
  });

  it('sends charge.dispute.created for the dispute test card', async () => {
    const pi = await pay('4000000000000259');
    const dispute = (await events()).find((e) => e.type === 'charge.dispute.created');
    expect(dispute?.data.object).toMatchObject({ object: 'dispute', payment_intent: pi.id, status: 'needs_response' });
  });

  it('refuses a wrong API key with 401', async () => {
    const error = await sdk({}, 'sk_test_wrong')
      .paymentIntents.retrieve('pi_x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });
});

describe('Stripe simulator faults', () => {
  it('answers 500 with Stripe-Should-Retry: false, which the SDK does not retry; nothing is charged', async () => {
    sim.next({ match: 'POST /v1/payment_intents', status: 500, shouldRetry: false });
    const pm = await card('4242424242424242');
    const error = await sdk({ maxNetworkRetries: 2 })
      .paymentIntents.create({
        amount: 900,
        currency: 'eur',
        payment_method: pm,
        confirm: true,
        metadata: { reference: 'order-500' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(totalsFor(sim.ledger(), 'order-500').payments).toBe(0);
  });

  it('charges once when the answer is lost after the charge and the SDK retries with its idempotency key', async () => {
    sim.next({ match: 'POST /v1/payment_intents', status: 503, processed: true });
    const pm = await card('4242424242424242');
    const pi = await sdk({ maxNetworkRetries: 1 }).paymentIntents.create({
      amount: 700,
      currency: 'eur',
      payment_method: pm,
      confirm: true,
      metadata: { reference: 'order-lost-answer' },
    });
    expect(pi.status).toBe('succeeded');
    expect(totalsFor(sim.ledger(), 'order-lost-answer')).toMatchObject({ payments: 1, captured: 700 });
  });

  it('answers 429 with Retry-After', async () => {
    sim.next({ status: 429, retryAfterSeconds: 2 });
    const error = await stripe.paymentIntents.retrieve('pi_whatever').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect((error as Stripe.errors.StripeError).headers?.['retry-after']).toBe('2');
  });

  it('resets the connection before answering', async () => {
    // The SDK takes a first closed connection for a stale keep-alive socket and tries once more.
    sim.next({ reset: true }, 2);
    const error = await stripe.paymentIntents.retrieve('pi_whatever').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
  });

  it('holds an answer (the SDK times out) and delays one (the SDK waits)', async () => {
    sim.next({ hang: true });
    const hung = await sdk({ timeout: 300 })
      .paymentIntents.retrieve('pi_whatever')
      .catch((e: unknown) => e);
    expect(hung).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const pi = await pay('4242424242424242');
    sim.next({ delayMs: 300 });
    const started = Date.now();
    expect((await stripe.paymentIntents.retrieve(pi.id)).id).toBe(pi.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('Stripe simulator contract checks', () => {
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  afterEach(() => {
    // These tests break the contract on purpose: what they recorded is checked, then dropped.
    sim.violations.splice(0);
  });

  it('catches an unknown parameter and a wrong type, answering 400 invalid_request_error', async () => {
    const unknown = await post('/v1/payment_intents', { amount: '1000', currency: 'eur', colour: 'blue' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const wrongType = await post('/v1/payment_intents', { amount: 'ten', currency: 'eur' });
    expect(wrongType.status).toBe(400);
    expect(sim.violations).toHaveLength(2);
    expect(sim.violations[0]).toMatchObject({ direction: 'request', operation: 'POST /v1/payment_intents' });
    expect(sim.violations[0].errors.join()).toContain('colour');
    expect(sim.violations[1].errors.join()).toContain('/amount must be integer');
  });

  it('catches a missing required parameter, raw card data the document does not admit, and an unknown path', async () => {
    await post('/v1/refunds/re_1', {});
    await post('/v1/payment_intents', { amount: '1000' });
    await post('/v1/payment_intents', {
      amount: '1000',
      currency: 'eur',
      'payment_method_data[type]': 'card',
      'payment_method_data[card][number]': '4242424242424242',
    });
    await post('/v1/charges', { amount: '1000', currency: 'eur' });
    const errors = sim.violations.map((v) => `${v.operation}: ${v.errors.join()}`);
    expect(errors).toHaveLength(4);
    expect(errors[0]).toContain('POST /v1/refunds/re_1: no such operation');
    expect(errors[1]).toContain("must have required property 'currency'");
    expect(errors[2]).toContain('/payment_method_data/type must be equal to one of the allowed values');
    expect(errors[3]).toContain('POST /v1/charges: no such operation');
  });
});
