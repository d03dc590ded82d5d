import { readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AdyenSimulator, notificationHmac, startAdyenSimulator } from '../../simulators/adyen/index.js';
import { logLines, startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { selfSignedCertificate } from '../helpers/tls.js';
import { createRequest, h2hCard } from '../payments/fixtures.js';
import { drainJobs, eventRows } from './helpers.js';
import { startWebhookGate } from './webhook-gate.js';

// POST /callbacks/adyen/{connectionId} end to end: the gateway routes card payments to the Adyen
// contract simulator (over HTTPS) through a merchant's connection, and the simulator's signed
// notifications come back to the receiver (through a gate that can hold them until the API answer is out).

const MERCHANT_ACCOUNT = 'GatewayMerchantECOM';

let tls: ReturnType<typeof selfSignedCertificate>;
let sim: AdyenSimulator;
let gate: Awaited<ReturnType<typeof startWebhookGate>>;
let gw: TestGateway;
let m: TestMerchant;
let connectionId: string;
let receiverPath: string;

beforeAll(async () => {
  tls = selfSignedCertificate();
  gate = await startWebhookGate();
  sim = await startAdyenSimulator({
    tls: { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) },
    webhookUrl: gate.url,
  });
  gw = await startTestGateway({
    env: { ADYEN_CHECKOUT_API_BASE: sim.url, ADYEN_CHECKOUT_INSECURE_TLS: 'true', PROCESSOR_TIMEOUT_MS: '1000' },
  });
  m = await gw.merchant();
  const created = await gw.call('POST', '/processor-connections', {
    apiKey: m.apiKey,
    body: {
      processor: 'adyen',
      credentials: { apiKey: sim.apiKey, merchantAccount: MERCHANT_ACCOUNT, hmacKey: sim.hmacKey, environment: 'test' },
      slots: ['h2h'],
    },
  });
  expect(created.status, created.text).toBe(201);
  connectionId = created.body.connectionId;
  receiverPath = `/callbacks/adyen/${connectionId}`;
  gate.forwardTo(`${gw.url}${receiverPath}`);
});

afterAll(async () => {
  gate?.release();
  await sim?.close();
  await gw?.close();
  await gate?.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

afterEach(async () => {
  gate.release();
  sim.duplicateWebhooks(false);
  sim.setWebhookUrl(gate.url);
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

async function settled(): Promise<void> {
  gate.release();
  await sim.webhooksSettled();
  await drainJobs(gw);
}

async function pay() {
  const id = await createRequest(gw, m);
  const res = await gw.call('POST', `/payments/h2h/${id}`, { apiKey: m.apiKey, body: h2hCard('4111111111111111') });
  expect(res.status, res.text).toBeLessThan(300);
  return { requestId: id, payment: res.body };
}

const payment = async (paymentId: number) =>
  (await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body;
const refundRow = (refundId: number) =>
  gw.db.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirstOrThrow();
const pspOf = async (paymentId: number) =>
  (
    await gw.db
      .selectFrom('payments')
      .select('processor_payment_id')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow()
  ).processor_payment_id!;
const adyenRowCount = async () =>
  (await gw.db.selectFrom('callback_events').select('id').where('source', '=', 'adyen').execute()).length;
const outboxEvents = (type: string, objectId: number) =>
  gw.db.selectFrom('outbox_events').selectAll().where('type', '=', type).where('object_id', '=', objectId).execute();

type Item = Record<string, unknown> & { amount: { value: number; currency: string } };
const itemsOf = (body: string) =>
  (JSON.parse(body) as { notificationItems: Array<{ NotificationRequestItem: Item }> }).notificationItems.map(
    (entry) => entry.NotificationRequestItem,
  );
const eventIdOf = (item: Item) => `${String(item.eventCode)}:${String(item.pspReference)}:${String(item.success)}`;

/** A notification item signed with the connection's HMAC key, as Adyen would send it. */
function signedItem(item: {
  eventCode: 'AUTHORISATION' | 'REFUND' | 'CAPTURE';
  pspReference: string;
  originalReference?: string;
  merchantReference: string;
  value: number;
  success: boolean;
  reason?: string;
}): Item {
  const fields = {
    eventCode: item.eventCode,
    pspReference: item.pspReference,
    ...(item.originalReference ? { originalReference: item.originalReference } : {}),
    merchantAccountCode: MERCHANT_ACCOUNT,
    merchantReference: item.merchantReference,
    amount: { currency: 'EUR', value: item.value },
    success: item.success,
  };
  return {
    additionalData: { hmacSignature: notificationHmac(fields, sim.hmacKey) },
    ...fields,
    eventDate: '2026-03-01T12:00:00+00:00',
    reason: item.reason ?? '',
    success: String(item.success),
  };
}

const notification = (...items: Item[]) =>
  JSON.stringify({ live: 'false', notificationItems: items.map((item) => ({ NotificationRequestItem: item })) });

describe('AUTHORISATION', () => {
  it('settles an authorization that timed out; the receiver answers [accepted] and records the item once', async () => {
    gate.hold();
    // Adyen authorises at once and holds its answer past the gateway's time-out: the outcome is unknown.
    sim.next({ match: 'POST /payments', delayMs: 2500 });
    const { payment: answered } = await pay();
    expect(answered.status).toBe('pending');
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'pending' });

    await settled();
    const delivery = sim.webhooks.find(
      (d) => d.type === 'AUTHORISATION' && d.body.includes(`"pay_${answered.paymentId}"`),
    );
    expect(delivery).toMatchObject({ status: 200, answer: '[accepted]' });
    const [item] = itemsOf(delivery!.body);
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
    expect(await pspOf(answered.paymentId)).toBe(item.pspReference);
    expect(await eventRows(gw, 'adyen', eventIdOf(item))).toMatchObject([
      { status: 'succeeded', signature_valid: true, processing_error: null },
    ]);
  });

  it('a notification sent twice has one effect, and each is answered [accepted]', async () => {
    gate.hold();
    sim.duplicateWebhooks(true);
    sim.next({ match: 'POST /payments', delayMs: 2500 });
    const { payment: answered } = await pay();
    expect(answered.status).toBe('pending');

    await settled();
    const twice = sim.webhooks.filter(
      (d) => d.type === 'AUTHORISATION' && d.body.includes(`"pay_${answered.paymentId}"`),
    );
    expect(twice.map((d) => [d.status, d.answer])).toEqual([
      [200, '[accepted]'],
      [200, '[accepted]'],
    ]);
    expect(await eventRows(gw, 'adyen', eventIdOf(itemsOf(twice[0].body)[0]))).toHaveLength(1);
    expect(await payment(answered.paymentId)).toMatchObject({ status: 'succeeded' });
    expect(await outboxEvents('payment.succeeded', answered.paymentId)).toHaveLength(1);
  });
});

describe('REFUND', () => {
  it('a refund stays pending until its REFUND notification, which finishes it once', async () => {
    const { requestId, payment: paid } = await pay();
    expect(paid.status).toBe('succeeded');
    await settled();

    gate.hold();
    sim.duplicateWebhooks(true);
    const refunded = await gw.call('POST', `/payments/${paid.paymentId}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'pending', amount: 10.5 });
    const refundId = refunded.body.refundId as number;
    // Reserved on the payment (no second refund can exceed it), not yet refunded on the request.
    expect(await payment(paid.paymentId)).toMatchObject({ amountRefunded: 10.5 });
    expect((await gw.call('GET', `/payment-requests/${requestId}`, { apiKey: m.apiKey })).body).toMatchObject({
      status: 'paid',
    });

    await settled();
    const deliveries = sim.webhooks.filter((d) => d.type === 'REFUND' && d.body.includes(`"rf_${refundId}"`));
    expect(deliveries.map((d) => d.answer)).toEqual(['[accepted]', '[accepted]']);
    const [item] = itemsOf(deliveries[0].body);
    expect(await refundRow(refundId)).toMatchObject({ status: 'succeeded', processor_refund_id: item.pspReference });
    expect((await gw.call('GET', `/payment-requests/${requestId}`, { apiKey: m.apiKey })).body).toMatchObject({
      status: 'refunded',
      amountRefunded: 10.5,
    });
    expect(await outboxEvents('refund.succeeded', refundId)).toHaveLength(1);
  });

  it('a failed REFUND fails the refund and releases its amount', async () => {
    const { requestId, payment: paid } = await pay();
    await settled();
    // Adyen's own notification is not sent: the one below says the refund failed.
    sim.setWebhookUrl(undefined);
    const refunded = await gw.call('POST', `/payments/${paid.paymentId}/refunds`, { apiKey: m.apiKey, body: {} });
    expect(refunded.body).toMatchObject({ status: 'pending' });
    const refundId = refunded.body.refundId as number;
    const modification = (await refundRow(refundId)).processor_refund_id!;

    const failed = signedItem({
      eventCode: 'REFUND',
      pspReference: modification,
      originalReference: await pspOf(paid.paymentId),
      merchantReference: `rf_${refundId}`,
      value: 1050,
      success: false,
      reason: 'Insufficient balance on payment',
    });
    const res = await gw.call('POST', receiverPath, { body: notification(failed) });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('[accepted]');
    await drainJobs(gw);
    expect(await eventRows(gw, 'adyen', eventIdOf(failed))).toMatchObject([{ status: 'refund_failed' }]);
    expect(await refundRow(refundId)).toMatchObject({ status: 'failed' });
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'succeeded', amountRefunded: 0 });
    expect((await gw.call('GET', `/payment-requests/${requestId}`, { apiKey: m.apiKey })).body).toMatchObject({
      status: 'paid',
      amountRefunded: 0,
    });
    expect(await outboxEvents('refund.failed', refundId)).toHaveLength(1);
  });
});

describe('refused deliveries and other notifications', () => {
  it('one item with a bad HMAC refuses the whole batch: 401, nothing recorded; the good item alone is accepted', async () => {
    const good = signedItem({
      eventCode: 'AUTHORISATION',
      pspReference: 'PSP0000000000GOOD',
      merchantReference: 'pay_999999999',
      value: 100,
      success: true,
    });
    const forged = { ...good, pspReference: 'PSP000000000FORGED', amount: { currency: 'EUR', value: 1 } };
    const before = await adyenRowCount();
    for (const body of [
      notification(good, forged),
      notification(forged),
      notification({ ...good, additionalData: {} }),
      '{"live": "false", "notificationItems": []}',
      'not json',
    ]) {
      const res = await gw.call('POST', receiverPath, { body, contentType: 'application/json' });
      expect(res.status, res.text).toBe(401);
      expect(res.body).toMatchObject({ code: 'WH001' });
    }
    expect(await adyenRowCount()).toBe(before);

    const alone = await gw.call('POST', receiverPath, { body: notification(good) });
    expect([alone.status, alone.text]).toEqual([200, '[accepted]']);
    await drainJobs(gw);
    // Verified, stored, and harmless: it names no payment of this connection.
    const [row] = await eventRows(gw, 'adyen', eventIdOf(good));
    expect(row).toMatchObject({ status: 'succeeded', processing_error: null });
    expect(row.processed_at).not.toBeNull();
  });

  it('a CHARGEBACK is recorded as a chargeback; a failed CAPTURE is logged with its payment', async () => {
    const { payment: paid } = await pay();
    await settled();
    const psp = await pspOf(paid.paymentId);
    sim.chargeback(psp);
    await settled();
    const delivery = sim.webhooks.find((d) => d.type === 'CHARGEBACK' && d.body.includes(psp));
    expect(delivery).toMatchObject({ status: 200, answer: '[accepted]' });
    expect(await eventRows(gw, 'adyen', eventIdOf(itemsOf(delivery!.body)[0]))).toMatchObject([
      { status: 'chargeback', transaction_id: psp, processing_error: null },
    ]);
    expect(
      logLines(gw).find(
        (l) => l.msg === 'chargeback: the payment is disputed at the processor' && l.eventId?.includes(psp),
      ),
    ).toMatchObject({ paymentId: paid.paymentId, connectionId });

    const capture = signedItem({
      eventCode: 'CAPTURE',
      pspReference: 'PSP00000000CAPTURE',
      originalReference: psp,
      merchantReference: `pay_${paid.paymentId}-capture-1050`,
      value: 1050,
      success: false,
      reason: 'Insufficient balance on payment',
    });
    const res = await gw.call('POST', receiverPath, { body: notification(capture) });
    expect(res.text).toBe('[accepted]');
    await drainJobs(gw);
    expect(await eventRows(gw, 'adyen', eventIdOf(capture))).toMatchObject([{ status: 'capture_failed' }]);
    expect(logLines(gw).find((l) => l.msg === 'processor reports capture_failed')).toMatchObject({
      paymentId: paid.paymentId,
      reason: 'Insufficient balance on payment',
    });
  });
});
