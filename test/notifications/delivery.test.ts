import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { purgeOldEvents } from '../../src/modules/notifications/purge-events.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from '../payments/fixtures.js';
import { merchantWithSecret, verifySha512, verifyStandard } from './merchant-side.js';
import { startReceiver, type Receiver } from './receiver.js';

const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
const gw = useGateway({ clock, env: { WEBHOOK_TIMEOUT_MS: '400' } });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

async function pay(m: TestMerchant, extra: Record<string, unknown> = {}) {
  const id = await createRequest(gw, m);
  const res = await gw.call('POST', `/payments/h2h/${id}`, {
    apiKey: m.apiKey,
    body: { ...h2hCard(CARDS.visa), ...extra },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.paymentId as number;
}

/** Runs the queue until nothing more is due now (one payment's next event waits for the one before). */
async function deliver() {
  for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
}

async function eventDetail(m: TestMerchant, eventId: string) {
  const res = await gw.call('GET', `/events/${eventId}`, { apiKey: m.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('settings', () => {
  it('has a secret from the start, never shown; a new one is shown once', async () => {
    const m = await gw.merchant();
    const first = await gw.call('GET', '/settings', { apiKey: m.apiKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ businessName: null, notifyUrl: null, checkoutOrigins: [], eventTypes: null });
    expect(first.body.webhookSecretPrefix).toMatch(/^whsec_.{6}$/);
    expect(JSON.stringify(first.body)).not.toMatch(/whsec_[^"]{7}/);
    const rotated = await gw.call('POST', '/settings/webhook-secret', { apiKey: m.apiKey });
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Date.parse(rotated.body.previousValidUntil) - clock.now().getTime()).toBe(24 * 3600 * 1000);
    const after = await gw.call('GET', '/settings', { apiKey: m.apiKey });
    expect(after.body.webhookSecretPrefix).toBe(rotated.body.secret.slice(0, 12));
    expect(after.body.webhookSecretPrefix).not.toBe(first.body.webhookSecretPrefix);
  });

  it('changes what is sent and refuses bad values with clear errors', async () => {
    const m = await gw.merchant();
    const ok = await gw.call('PATCH', '/settings', {
      apiKey: m.apiKey,
      body: {
        businessName: 'Shop',
        checkoutOrigins: ['https://shop.example', 'http://localhost:3000'],
        eventTypes: ['payment.succeeded'],
      },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({
      businessName: 'Shop',
      checkoutOrigins: ['https://shop.example', 'http://localhost:3000'],
      eventTypes: ['payment.succeeded'],
    });
    for (const [body, code] of [
      [{ checkoutOrigins: ['https://shop.example/path'] }, 'VAL002'],
      [{ eventTypes: ['payment.nothing'] }, 'VAL002'],
      [{ notifyUrl: 'ftp://shop.example/hook' }, 'WH003'],
      [{ notifyUrl: 'not a url' }, 'VAL002'],
      [{}, 'VAL001'],
    ] as const) {
      const res = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code ?? res.body.code, res.text).toBe(code);
    }
  });

  it('separates test and live settings; live checkout origins must be https', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { businessName: 'Test shop' } });
    const live = await gw.call('GET', '/settings', { apiKey: m.liveKey });
    expect(live.body.businessName).toBeNull();
    const http = await gw.call('PATCH', '/settings', {
      apiKey: m.liveKey,
      body: { checkoutOrigins: ['http://shop.example'] },
    });
    expect(http.status).toBe(400);
  });
});

describe('delivery', () => {
  it("sends each event to the payment's notifyUrl, signed two ways, verifiable with standardwebhooks", async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/default');
    const paymentId = await pay(m, { notifyUrl: `${receiver.url}/payment-specific` });
    await deliver();
    const [delivery] = receiver.at('/payment-specific');
    expect(delivery).toBeDefined();
    const envelope = verifyStandard(m.secret, delivery, clock.now()) as Record<string, any>;
    expect(envelope).toMatchObject({
      type: 'payment.succeeded',
      apiVersion: '2.1',
      livemode: false,
      data: { object: { paymentId, status: 'succeeded' } },
    });
    expect(envelope.id).toMatch(/^evt_\d+$/);
    expect(delivery.headers['webhook-id']).toBe(envelope.id);
    expect(verifySha512(m.secret, delivery.body, delivery.headers['x-webhook-signature'] as string)).toBe(true);
    expect(verifySha512(m.secret, delivery.body + ' ', delivery.headers['x-webhook-signature'] as string)).toBe(false);
    expect(receiver.at('/default')).toHaveLength(0);

    const detail = await eventDetail(m, envelope.id);
    expect(detail.attempts).toEqual([
      expect.objectContaining({ url: `${receiver.url}/payment-specific`, statusCode: 200, error: null }),
    ]);
    // Delivered once: another pass sends nothing more.
    await deliver();
    expect(receiver.at('/payment-specific')).toHaveLength(1);
  });

  it("falls back to the merchant's default URL and honours the chosen event types", async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/fallback');
    await pay(m);
    await deliver();
    expect(receiver.at('/fallback').map((r) => JSON.parse(r.body).type)).toEqual(['payment.succeeded']);

    await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { eventTypes: ['refund.succeeded'] } });
    await pay(m);
    await deliver();
    expect(receiver.at('/fallback')).toHaveLength(1);
  });

  it('retries a failing receiver with back-off, honours Retry-After, and stops once it answers 2xx', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/flaky');
    receiver.answers.push({ status: 500 }, { status: 503, headers: { 'retry-after': '7200' } });
    await pay(m);
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(1);
    clock.advance(47); // before the earliest first back-off (1 min −20 % = 48 s)
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(1);
    clock.advance(26); // past the latest (1 min +20 % = 72 s)
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(2);
    clock.advance(3600); // the back-off would allow it; Retry-After (2 h) does not
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(2);
    clock.advance(3601);
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(3);
    clock.advance(24 * 3600);
    await deliver();
    expect(receiver.at('/flaky')).toHaveLength(3);

    const ids = new Set(receiver.at('/flaky').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const detail = await eventDetail(m, [...ids][0] as string);
    expect(detail.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 503, 200]);
    expect(detail.attempts[0].error).toMatchObject({ error: 'WEBHOOK_DELIVERY_FAILED', code: 'WH004' });
    expect(detail.pendingDeliveries).toBe(0);
  });

  it('records a time-out as WEBHOOK_TIMEOUT (WH002) and never follows a redirect', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/slow');
    receiver.answers.push({ status: 200, hang: true });
    await pay(m);
    await deliver();
    const [first] = receiver.at('/slow');
    const detail = await eventDetail(m, first.headers['webhook-id'] as string);
    expect(detail.attempts[0]).toMatchObject({ statusCode: null, error: { error: 'WEBHOOK_TIMEOUT', code: 'WH002' } });

    const r = await merchantWithSecret(gw, receiver.url + '/moved');
    receiver.answers.push({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    await pay(r);
    await deliver();
    expect(receiver.at('/elsewhere')).toHaveLength(0);
    const moved = await eventDetail(r, receiver.at('/moved')[0].headers['webhook-id'] as string);
    expect(moved.attempts[0]).toMatchObject({ statusCode: 302, error: { code: 'WH004' } });
    expect(moved.pendingDeliveries).toBe(1);
  });

  it('gives up after about 3 days and disables the endpoint; a 410 disables it at once', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/dead');
    receiver.setFallback({ status: 500 });
    try {
      await pay(m);
      for (let hour = 0; hour < 80; hour += 1) {
        await deliver();
        clock.advance(3600);
      }
    } finally {
      receiver.setFallback({ status: 200 });
    }
    const attempts = receiver.at('/dead').length;
    expect(attempts).toBeGreaterThanOrEqual(9);
    expect(attempts).toBeLessThanOrEqual(13);
    const settings = await gw.call('GET', '/settings', { apiKey: m.apiKey });
    expect(settings.body.endpointDisabledAt).not.toBeNull();
    const detail = await eventDetail(m, receiver.at('/dead')[0].headers['webhook-id'] as string);
    expect(detail.pendingDeliveries).toBe(0);
    // Disabled: the next event is logged but not sent; setting the URL again re-enables it.
    await pay(m);
    await deliver();
    expect(receiver.at('/dead')).toHaveLength(attempts);
    await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/dead` } });
    expect((await gw.call('GET', '/settings', { apiKey: m.apiKey })).body.endpointDisabledAt).toBeNull();

    const gone = await merchantWithSecret(gw, receiver.url + '/gone');
    receiver.answers.push({ status: 410 });
    await pay(gone);
    await deliver();
    clock.advance(24 * 3600);
    await deliver();
    expect(receiver.at('/gone')).toHaveLength(1);
    expect((await gw.call('GET', '/settings', { apiKey: gone.apiKey })).body.endpointDisabledAt).not.toBeNull();
  });

  it('signs with both secrets during the 24-hour rotation window, then only with the new one', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/rotation');
    const rotated = await gw.call('POST', '/settings/webhook-secret', { apiKey: m.apiKey });
    const newSecret = rotated.body.secret as string;
    await pay(m);
    await deliver();
    const [during] = receiver.at('/rotation');
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect((during.headers['x-webhook-signature'] as string).split(',')).toHaveLength(2);
    for (const secret of [m.secret, newSecret]) {
      expect(() => verifyStandard(secret, during, clock.now())).not.toThrow();
      expect(verifySha512(secret, during.body, during.headers['x-webhook-signature'] as string)).toBe(true);
    }

    clock.advance(24 * 3600 + 1);
    await pay(m);
    await deliver();
    const after = receiver.at('/rotation')[1];
    expect(() => verifyStandard(newSecret, after, clock.now())).not.toThrow();
    expect(() => verifyStandard(m.secret, after, clock.now())).toThrow();
    expect(verifySha512(m.secret, after.body, after.headers['x-webhook-signature'] as string)).toBe(false);
  });

  it('sends one payment’s events in order', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/ordered');
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/h2h/${id}`, {
      apiKey: m.apiKey,
      body: { ...h2hCard(CARDS.visa), captureDelayHours: 1 },
    });
    expect(res.status, res.text).toBe(200);
    const canceled = await gw.call('POST', `/payments/${res.body.paymentId}/cancel`, { apiKey: m.apiKey });
    expect(canceled.status, canceled.text).toBe(200);
    await deliver();
    expect(receiver.at('/ordered').map((r) => JSON.parse(r.body).type)).toEqual([
      'payment.authorized',
      'payment.canceled',
    ]);
  });
});

describe('the relay', () => {
  it('queues each event once, and the retention keeps an event the relay has not handed on', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/relay');
    const paymentId = await pay(m);
    const [event] = await gw.db
      .selectFrom('outbox_events')
      .select('id')
      .where('merchant_id', '=', m.merchantId)
      .where('object_id', '=', paymentId)
      .execute();
    const queued = () => gw.db.selectFrom('outbox_queue').select('event_id').where('event_id', '=', event.id).execute();
    // Written by the payment's own statement, waiting for the relay.
    expect(await queued()).toHaveLength(1);

    // Past the retention before the relay ran (a relay down for a month): the purge leaves it alone.
    await purgeOldEvents({
      db: gw.db,
      clock: new ManualClock(new Date(clock.now().getTime() + 31 * 24 * 3600 * 1000)),
    });
    expect(await queued()).toHaveLength(1);

    await deliver();
    expect(await queued()).toEqual([]);
    expect(receiver.at('/relay').map((r) => JSON.parse(r.body).type)).toEqual(['payment.succeeded']);
    // Handed on once: further runs of the relay send nothing more.
    await deliver();
    expect(receiver.at('/relay')).toHaveLength(1);
  });
});

describe('delivery log', () => {
  it('re-sends one event on request, with the same event id, and keeps events 30 days', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/log');
    await pay(m);
    await deliver();
    const [first] = receiver.at('/log');
    const eventId = first.headers['webhook-id'] as string;

    const resent = await gw.call('POST', `/events/${eventId}/resend`, { apiKey: m.apiKey });
    expect(resent.status, resent.text).toBe(200);
    await deliver();
    expect(receiver.at('/log').map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect((await eventDetail(m, eventId)).attempts).toHaveLength(2);

    const other = await gw.merchant();
    const foreign = await gw.call('POST', `/events/${eventId}/resend`, { apiKey: other.apiKey });
    expect(foreign.status, foreign.text).toBe(404);

    clock.advance(29 * 24 * 3600);
    await deliver();
    expect((await gw.call('GET', `/events/${eventId}`, { apiKey: m.apiKey })).status).toBe(200);
    clock.advance(2 * 24 * 3600);
    await deliver();
    expect((await gw.call('GET', `/events/${eventId}`, { apiKey: m.apiKey })).status).toBe(404);
  });
});
