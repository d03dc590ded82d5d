import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/notifications/event-types.js';
import { expectErrorGuide } from '../helpers/assertions.js';
import { PASSWORD, useGateway } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';
import { merchantWithSecret, verifySha512, verifyStandard } from './merchant-side.js';
import { startReceiver, type Receiver } from './receiver.js';
import { validateEvent } from './event-schemas.js';

/**
 * POST /events/test: a signed sample event of a type, sent to the merchant's notifyUrl at once through
 * the path real events take, its outcome answered; marked as a test and kept out of the event log.
 */
const gw = useGateway();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

describe('POST /events/test', () => {
  it('delivers a sample of the type, signed as real events are, marked as a test, and answers the outcome', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/hooks/test-ok');
    const res = await gw.call('POST', '/events/test', { apiKey: m.apiKey, body: { type: 'payment.succeeded' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      type: 'payment.succeeded',
      url: `${receiver.url}/hooks/test-ok`,
      delivered: true,
      statusCode: 200,
      error: null,
    });
    expect(res.body.id).toMatch(/^evt_test_[0-9a-f]{24}$/);

    const [received, ...more] = receiver.at('/hooks/test-ok');
    expect(more).toEqual([]);
    // Verified as a merchant would: the Standard Webhooks library and the SHA-512 header; a wrong secret
    // verifies neither.
    const other = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(verifyStandard(m.secret, received, gw.clock.now())).toEqual(JSON.parse(received.body));
    expect(() => verifyStandard(other, received, gw.clock.now())).toThrow();
    expect(verifySha512(m.secret, received.body, String(received.headers['x-webhook-signature']))).toBe(true);
    expect(verifySha512(other, received.body, String(received.headers['x-webhook-signature']))).toBe(false);

    const event = JSON.parse(received.body);
    expect(received.headers['webhook-id']).toBe(res.body.id);
    expect(event).toMatchObject({ id: res.body.id, type: 'payment.succeeded', livemode: false, test: true });
    expect(event.data.object).toMatchObject({ paymentId: 0, status: 'succeeded' });
    expect(validateEvent(event)).toEqual([]);

    // Not an event of the merchant's: the log does not list it, nothing is queued to send it again.
    const events = await gw.call('GET', '/events', { apiKey: m.apiKey });
    expect(events.body.data).toEqual([]);
    await gw.runJobs();
    expect(receiver.at('/hooks/test-ok')).toHaveLength(1);
  });

  it('sends every type the settings offer', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/hooks/test-every');
    const offered = (await gw.call('GET', '/settings', { apiKey: m.apiKey })).body.availableEventTypes as string[];
    expect(offered).toEqual([...EVENT_TYPES]);
    for (const type of offered) {
      const res = await gw.call('POST', '/events/test', { apiKey: m.apiKey, body: { type } });
      expect([res.status, res.body.delivered], res.text).toEqual([200, true]);
    }
    const received = receiver.at('/hooks/test-every').map((r) => JSON.parse(r.body));
    expect(received.map((event) => event.type)).toEqual(offered);
    for (const event of received) expect(validateEvent(event), event.type).toEqual([]);
  });

  it("answers a receiver's refusal as the outcome, once, without retrying or disabling the endpoint", async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/hooks/test-refused');
    receiver.answers.push({ status: 410 });
    const res = await gw.call('POST', '/events/test', { apiKey: m.apiKey, body: { type: 'refund.failed' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      delivered: false,
      statusCode: 410,
      error: { error: 'WEBHOOK_DELIVERY_FAILED', code: 'WH004' },
    });
    await gw.runJobs();
    expect(receiver.at('/hooks/test-refused')).toHaveLength(1);
    const settings = await gw.call('GET', '/settings', { apiKey: m.apiKey });
    expect(settings.body.endpointDisabledAt).toBeNull();
  });

  it('refuses a type the gateway does not emit as 400 and sends nothing', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/hooks/test-bad-type');
    for (const body of [{ type: 'payment.nothing' }, { type: 7 }, {}]) {
      const res = await gw.call('POST', '/events/test', { apiKey: m.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectErrorGuide(res, res.body.error);
      expect(['VALIDATION_ERROR', 'INVALID_FORMAT']).toContain(res.body.error);
    }
    expect(receiver.at('/hooks/test-bad-type')).toEqual([]);
  });

  it('refuses with 409 NOTIFY_URL_NOT_SET when the settings have no notifyUrl', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/events/test', { apiKey: m.apiKey, body: { type: 'payment.failed' } });
    expectErrorGuide(res, 'NOTIFY_URL_NOT_SET');
    expect(res.body.message).toContain('notifyUrl');
  });

  it('takes what the other settings routes take: the API key or the panel session, not a viewer, not no one', async () => {
    const m = await merchantWithSecret(gw, receiver.url + '/hooks/test-access');
    const body = { type: 'payment.canceled' };
    expectErrorGuide(await gw.call('POST', '/events/test', { body }), 'INVALID_API_KEY');
    const signIn = async (email: string) => {
      const res = await gw.call('POST', '/auth/session', { body: { email, password: PASSWORD } });
      expect(res.status, res.text).toBe(200);
      return { cookie: res.headers.get('set-cookie')!.split(';')[0], 'x-csrf-token': res.body.csrfToken as string };
    };
    const viewer = await teammate(gw, m, 'viewer');
    const refused = await gw.call('POST', '/events/test', { headers: await signIn(viewer.email), body });
    expectErrorGuide(refused, 'INSUFFICIENT_PERMISSIONS');
    expect(receiver.at('/hooks/test-access')).toEqual([]);
    const owner = await gw.call('POST', '/events/test', { headers: await signIn(m.email), body });
    expect([owner.status, owner.body.delivered], owner.text).toEqual([200, true]);
    expect(receiver.at('/hooks/test-access')).toHaveLength(1);
  });
});
