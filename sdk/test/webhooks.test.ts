import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { useGateway } from '../../test/helpers/gateway.js';
import { startReceiver, type Received, type Receiver } from '../../test/notifications/receiver.js';
import { CARDS, h2hCard } from '../../test/payments/fixtures.js';
import { Gateway, WebhookVerificationError, type WebhookHeaders } from '../src/index.js';

/**
 * Gateway.webhooks.verify on real deliveries: the gateway (manual clock) notifies a loopback receiver
 * of a payment, signed both ways with the secret POST /settings/webhook-secret showed.
 */
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
const gw = useGateway({ clock });
let receiver: Receiver;
let secret: string;
let delivery: Received;
let paymentId: number;

beforeAll(async () => {
  receiver = await startReceiver();
  const m = await gw.merchant();
  const gateway = new Gateway({ apiKey: m.apiKey, baseUrl: gw.url });
  const patched = await gw.call('PATCH', '/settings', {
    apiKey: m.apiKey,
    body: { notifyUrl: `${receiver.url}/hook` },
  });
  expect(patched.status, patched.text).toBe(200);
  secret = (await gw.call('POST', '/settings/webhook-secret', { apiKey: m.apiKey })).body.secret as string;
  const request = await gateway.paymentRequests.create({ amount: 10.5, currency: 'EUR', reference: 'hooked' });
  paymentId = (await gateway.payments.h2h(request.paymentRequestId, h2hCard(CARDS.visa))).paymentId;
  for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
  delivery = receiver.at('/hook').find((r) => r.body.includes('"payment.succeeded"'))!;
  expect(delivery).toBeDefined();
});
afterAll(async () => receiver.close());

/** The delivery's headers with only the named signature scheme's ones kept. */
function only(scheme: 'standard' | 'plain', headers = delivery.headers): WebhookHeaders {
  const standard = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) =>
      scheme === 'standard' ? name !== 'x-webhook-signature' : !standard.includes(name),
    ),
  );
}
const now = () => clock.now();

describe('Gateway.webhooks.verify', () => {
  it('accepts a delivery by its Standard Webhooks signature and answers the event', () => {
    const event = Gateway.webhooks.verify(delivery.body, only('standard'), secret, { now: now() });
    expect(event).toMatchObject({ type: 'payment.succeeded', data: { object: { paymentId, status: 'succeeded' } } });
    expect(event.id).toBe(delivery.headers['webhook-id']);
  });

  it('accepts a delivery by its X-Webhook-Signature, from a Buffer or a Headers object too', () => {
    const headers = new Headers(only('plain') as Record<string, string>);
    expect(Gateway.webhooks.verify(Buffer.from(delivery.body), headers, secret).type).toBe('payment.succeeded');
  });

  it('refuses a tampered body under either signature', () => {
    const tampered = delivery.body.replace('"succeeded"', '"failed"');
    expect(tampered).not.toBe(delivery.body);
    expect(() => Gateway.webhooks.verify(tampered, only('standard'), secret, { now: now() })).toThrow(
      WebhookVerificationError,
    );
    expect(() => Gateway.webhooks.verify(tampered, only('plain'), secret)).toThrow(/does not match/);
  });

  it('refuses another secret, a forged signature and a missing one', () => {
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => Gateway.webhooks.verify(delivery.body, only('standard'), other, { now: now() })).toThrow(
      /does not match/,
    );
    expect(() => Gateway.webhooks.verify(delivery.body, only('plain'), other)).toThrow(/does not match/);
    const forged = { ...only('plain'), 'x-webhook-signature': 'ab'.repeat(64) };
    expect(() => Gateway.webhooks.verify(delivery.body, forged, secret)).toThrow(/does not match/);
    expect(() => Gateway.webhooks.verify(delivery.body, {}, secret)).toThrow(/No signature header/);
  });

  it('refuses a Standard Webhooks delivery outside the timestamp tolerance (a replay)', () => {
    const later = new Date(now().getTime() + 6 * 60_000);
    expect(() => Gateway.webhooks.verify(delivery.body, only('standard'), secret, { now: later })).toThrow(
      /seconds away/,
    );
    expect(
      Gateway.webhooks.verify(delivery.body, only('standard'), secret, { now: later, toleranceSeconds: 600 }).type,
    ).toBe('payment.succeeded');
    const moved = {
      ...only('standard'),
      'webhook-timestamp': String(Number(delivery.headers['webhook-timestamp']) + 1),
    };
    expect(() => Gateway.webhooks.verify(delivery.body, moved, secret, { now: now() })).toThrow(/does not match/);
  });
});
