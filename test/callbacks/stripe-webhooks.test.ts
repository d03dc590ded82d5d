import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StripeSimulator, startStripeSimulator } from '../../simulators/stripe/index.js';
import { logLines, startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, h2hCard } from '../payments/fixtures.js';
import { ADYEN_TEST } from '../processor-connections/fixtures.js';
import { drainJobs, eventRows } from './helpers.js';
import { startWebhookGate } from './webhook-gate.js';

// POST /callbacks/stripe/{connectionId} end to end: the gateway routes card payments to the Stripe
// contract simulator through a merchant's connection, and the simulator's signed events come back to
// the receiver (through a gate that can hold them until the API answer is out).

let sim: StripeSimulator;
let gate: Awaited<ReturnType<typeof startWebhookGate>>;
let gw: TestGateway;
let m: TestMerchant;
let connectionId: string;

beforeAll(async () => {
  gate = await startWebhookGate();
  sim = await startStripeSimulator({ webhookUrl: gate.url });
  gw = await startTestGateway({ env: { STRIPE_API_BASE: sim.url, PROCESSOR_TIMEOUT_MS: '1000' } });
  m = await gw.merchant();
  const created = await gw.call('POST', '/processor-connections', {
    apiKey: m.apiKey,
    body: {
      processor: 'stripe',
      credentials: { secretKey: sim.apiKey, webhookSecret: sim.webhookSecret },
      slots: ['h2h'],
    },
  });
  expect(created.status, created.text).toBe(201);
  connectionId = created.body.connectionId;
  gate.forwardTo(`${gw.url}/callbacks/stripe/${connectionId}`);
});

afterAll(async () => {
  gate?.release();
  await sim?.close();
  await gw?.close();
  await gate?.close();
});

afterEach(async () => {
  gate.release();
  sim.duplicateWebhooks(false);
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

/** Every webhook delivered and answered, and the jobs they queued run. */
async function settled(): Promise<void> {
  gate.release();
  await sim.webhooksSettled();
  await drainJobs(gw);
}

async function pay(number = '4242424242424242') {
  const id = await createRequest(gw, m);
  const res = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: h2hCard(number) });
  expect(res.status, res.text).toBeLessThan(300);
  return { requestId: id, payment: res.body };
}

const payment = async (paymentId: number) =>
  (await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body;

const deliveriesOf = (type: string) => sim.webhooks.filter((d) => d.type === type);
const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;
const stripeRows = () => gw.db.selectFrom('callback_events').selectAll().where('source', '=', 'stripe').execute();
const outboxEvents = (type: string, objectId: number) =>
  gw.db.selectFrom('outbox_events').selectAll().where('type', '=', type).where('object_id', '=', objectId).execute();

describe('payment_intent events', () => {
  it('settle a payment whose confirmation answer was lost; the receiver answers 200 and records the event once', async () => {
    gate.hold();
    // Stripe confirms and charges; no answer comes in time: the outcome is unknown.
    sim.next({ match: '/confirm', hang: true, processed: true });
    const { payment: answered } = await pay();
    expect(answered.status).toBe('pending');
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'pending' });

    await settled();
    const [delivery] = deliveriesOf('payment_intent.succeeded').slice(-1);
    expect(delivery).toMatchObject({ status: 200 });
    const eventId = eventIdOf(delivery.body);
    expect(JSON.parse(delivery.answer!)).toEqual({ received: true, eventId });
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
    const [row, ...more] = await eventRows(gw, 'stripe', eventId);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ status: 'succeeded', signature_valid: true, processing_error: null });
    expect(row.processed_at).not.toBeNull();
    expect(row.payload).toMatchObject({ providerData: { connectionId, reference: `pay_${answered.paymentId}` } });
    // The body as received is the audit record, without the PaymentIntent's client secret.
    expect(row.raw_body).toContain(eventId);
    expect(row.raw_body).not.toMatch(/"client_secret":\s*"pi_/);
  });

  it('a delivery sent twice has one effect: the second is answered 200 duplicate', async () => {
    gate.hold();
    sim.duplicateWebhooks(true);
    sim.next({ match: '/confirm', hang: true, processed: true });
    const { payment: answered } = await pay();
    expect(answered.status).toBe('pending');

    await settled();
    const twice = deliveriesOf('payment_intent.succeeded').slice(-2);
    const eventId = eventIdOf(twice[0].body);
    expect(twice.map((d) => [d.status, JSON.parse(d.answer!)])).toEqual([
      [200, { received: true, eventId }],
      [200, { received: true, eventId, duplicate: true }],
    ]);
    expect(await eventRows(gw, 'stripe', eventId)).toHaveLength(1);
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'succeeded' });
    expect(await outboxEvents('payment.succeeded', answered.paymentId)).toHaveLength(1);
  });
});

describe('refused deliveries', () => {
  it('a tampered body, another secret or no signature: 401 WH001 and nothing recorded', async () => {
    await pay();
    await settled();
    const [delivery] = sim.webhooks.slice(-1);
    const path = `/callbacks/stripe/${connectionId}`;
    const before = (await stripeRows()).length;
    const signature = delivery.headers['stripe-signature'];
    const tampered = delivery.body.replace(/"amount": \d+/, '"amount": 1');
    expect(tampered).not.toBe(delivery.body);
    const wrongSecret = signature.replace(/v1=[0-9a-f]{8}/, 'v1=00000000');

    for (const [body, headers] of [
      [tampered, { 'stripe-signature': signature }],
      [delivery.body, { 'stripe-signature': wrongSecret }],
      [delivery.body, {}],
      ['{"id": "evt_unsigned", "type": "payment_intent.succeeded"', { 'stripe-signature': signature }],
    ] as const) {
      const res = await gw.call('POST', path, { body, headers });
      expect(res.status, res.text).toBe(401);
      expect(res.body).toMatchObject({ code: 'WH001' });
    }
    // Still received, verified and recorded when sent as it was signed (the same event: a duplicate).
    const again = await gw.call('POST', path, { body: delivery.body, headers: { 'stripe-signature': signature } });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    expect(await stripeRows()).toHaveLength(before);
    expect(logLines(gw).some((l) => l.msg === 'processor webhook refused' && l.connectionId === connectionId)).toBe(
      true,
    );
  });

  it('an unknown connection, or one of another processor, answers 404 before the signature is read', async () => {
    const adyen = await gw.call('POST', '/processor-connections', {
      apiKey: m.apiKey,
      body: { processor: 'adyen', credentials: ADYEN_TEST, slots: ['globex'] },
    });
    expect(adyen.status, adyen.text).toBe(201);
    const [delivery] = sim.webhooks.slice(-1);
    for (const id of ['pc_000000000000000000000000', adyen.body.connectionId as string, `pc_${'x'.repeat(60)}`]) {
      const res = await gw.call('POST', `/callbacks/stripe/${id}`, {
        body: delivery.body,
        headers: delivery.headers,
      });
      expect(res.status, `${id}: ${res.text}`).toBe(404);
      expect(res.text).not.toContain(id.slice(0, 30));
    }
  });
});

describe('another merchant', () => {
  it("an event signed with another connection's secret that names this connection's payment changes nothing", async () => {
    gate.hold();
    sim.next({ match: '/confirm', hang: true, processed: true });
    const { payment: answered } = await pay();
    expect(answered.status).toBe('pending');
    const intentId = (
      await gw.db
        .selectFrom('payments')
        .select('processor_payment_id')
        .where('id', '=', answered.paymentId)
        .executeTakeFirstOrThrow()
    ).processor_payment_id;

    // A merchant chooses its own connection's webhook secret, so it can sign any event for that connection.
    const other = await gw.merchant();
    const secret = 'whsec_ChosenByTheOtherMerchant';
    const created = await gw.call('POST', '/processor-connections', {
      apiKey: other.apiKey,
      body: { processor: 'stripe', credentials: { secretKey: 'sk_test_other', webhookSecret: secret }, slots: ['h2h'] },
    });
    expect(created.status, created.text).toBe(201);
    const forged = JSON.stringify({
      id: 'evt_forged_by_another_merchant',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: intentId ?? 'pi_unknown',
          object: 'payment_intent',
          amount: 1050,
          amount_received: 1050,
          currency: 'eur',
          metadata: { payment_id: `pay_${answered.paymentId}` },
        },
      },
    });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', secret).update(`${t}.${forged}`).digest('hex');
    const res = await gw.call('POST', `/callbacks/stripe/${created.body.connectionId}`, {
      body: forged,
      headers: { 'stripe-signature': `t=${t},v1=${v1}` },
    });
    expect(res.status, res.text).toBe(200);
    await drainJobs(gw);
    expect(await eventRows(gw, 'stripe', 'evt_forged_by_another_merchant')).toMatchObject([{ processing_error: null }]);
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'pending' });
    expect(logLines(gw).some((l) => l.msg === 'processor webhook names no payment of its connection')).toBe(true);

    // Stripe's own event, through this connection, settles it.
    await settled();
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'succeeded' });
  });
});

describe('refunds and disputes', () => {
  it('a refund whose answer was lost is finished by its refund.updated event, once; other events are stored only', async () => {
    const { requestId, payment: paid } = await pay();
    expect(paid.status).toBe('succeeded');
    await settled();

    gate.hold();
    sim.duplicateWebhooks(true);
    // Stripe refunds; the answer never arrives: the refund stays pending, its reference rf_<id> at Stripe.
    sim.next({ match: 'POST /v1/refunds', hang: true, processed: true });
    const refunded = await gw.call('POST', `/payments/${paid.paymentId}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'pending', amount: 10.5 });
    const refundId = refunded.body.refundId as number;

    await settled();
    const refund = await gw.db.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirstOrThrow();
    expect(refund).toMatchObject({ status: 'succeeded', processor_refund_id: expect.stringMatching(/^re_/) });
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'succeeded', amountRefunded: 10.5 });
    expect((await gw.call('GET', `/payment-requests/${requestId}`, { apiKey: m.apiKey })).body).toMatchObject({
      status: 'refunded',
      amountRefunded: 10.5,
    });
    expect(await outboxEvents('refund.succeeded', refundId)).toHaveLength(1);

    const [updated] = deliveriesOf('refund.updated').slice(-1);
    expect(await eventRows(gw, 'stripe', eventIdOf(updated.body))).toMatchObject([
      { status: 'refunded', processing_error: null },
    ]);
    // charge.refunded is acknowledged and kept, not acted on (the refund events tell each refund).
    const [charge] = deliveriesOf('charge.refunded').slice(-1);
    expect(charge).toMatchObject({ status: 200 });
    const [stored] = await eventRows(gw, 'stripe', eventIdOf(charge.body));
    expect(stored).toMatchObject({ status: 'charge.refunded' });
    expect(stored.processing_error).toMatch(/stored only/);
  });

  it('a dispute is recorded as a chargeback of the payment', async () => {
    const { payment: paid } = await pay();
    await settled();
    const intentId = (
      await gw.db
        .selectFrom('payments')
        .select('processor_payment_id')
        .where('id', '=', paid.paymentId)
        .executeTakeFirstOrThrow()
    ).processor_payment_id!;
    sim.dispute(intentId);
    await settled();
    const [dispute] = deliveriesOf('charge.dispute.created').slice(-1);
    expect(dispute).toMatchObject({ status: 200 });
    const [row] = await eventRows(gw, 'stripe', eventIdOf(dispute.body));
    expect(row).toMatchObject({ status: 'chargeback', transaction_id: intentId, processing_error: null });
    expect(row.processed_at).not.toBeNull();
    expect(logLines(gw).find((l) => l.msg === 'chargeback: the payment is disputed at the processor')).toMatchObject({
      paymentId: paid.paymentId,
      connectionId,
      amount: 1050,
    });
    // The payment itself is unchanged: a dispute is decided later, outside the gateway.
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'succeeded' });
  });
});
