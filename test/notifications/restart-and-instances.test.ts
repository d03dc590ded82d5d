import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from '../payments/fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';

// Delivery survives a restart and never sends one attempt from two instances: two gateways on one
// database, as in production.
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function payWithNotifyUrl(gw: TestGateway, m: TestMerchant, notifyPath: string): Promise<number> {
  const id = await createRequest(gw, m);
  const res = await gw.call('POST', `/payments/h2h/${id}`, {
    apiKey: m.apiKey,
    body: { ...h2hCard(CARDS.visa), notifyUrl: receiver.url + notifyPath },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.paymentId as number;
}

describe('a restart', () => {
  it('in the middle of the back-off loses nothing and doubles nothing', async () => {
    const first = await startTestGateway({ clock });
    const m = await first.merchant();
    let second: TestGateway | undefined;
    try {
      receiver.answers.push({ status: 503 });
      await payWithNotifyUrl(first, m, '/restart-backoff');
      await first.runJobs(); // attempt 1 fails: backing off
      await payWithNotifyUrl(first, m, '/restart-unqueued'); // its event is not even queued yet
      await first.close();
      expect(receiver.at('/restart-backoff')).toHaveLength(1);
      expect(receiver.at('/restart-unqueued')).toHaveLength(0);

      second = await startTestGateway({ env: { DATABASE_URL: first.config.databaseUrl! }, clock });
      await second.runJobs();
      expect(receiver.at('/restart-unqueued')).toHaveLength(1);
      expect(receiver.at('/restart-backoff')).toHaveLength(1); // still backing off
      clock.advance(120);
      await second.runJobs();
      clock.advance(24 * 3600);
      await second.runJobs();
      await second.runJobs();
      const attempts = receiver.at('/restart-backoff');
      expect(attempts).toHaveLength(2);
      expect(attempts[1].headers['webhook-id']).toBe(attempts[0].headers['webhook-id']);
      expect(receiver.at('/restart-unqueued')).toHaveLength(1);
      const detail = await second.call('GET', `/events/${attempts[0].headers['webhook-id'] as string}`, {
        apiKey: m.apiKey,
      });
      expect(detail.body.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 200]);
    } finally {
      await second?.close();
    }
  }, 90_000);
});

describe('two instances', () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await startTestGateway({ clock });
    b = await startTestGateway({ env: { DATABASE_URL: a.config.databaseUrl! }, clock });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('send each attempt once', async () => {
    const m = await a.merchant();
    const runOnB = () => b.runJobs();
    const payments = 12;
    for (let i = 0; i < payments; i++) await payWithNotifyUrl(a, m, '/instances');
    // Slow answers keep claims open while the other instance looks; the first four fail once.
    receiver.setFallback({ status: 200, delayMs: 30 });
    receiver.answers.push(...Array.from({ length: 4 }, () => ({ status: 500, delayMs: 30 })));
    try {
      // Each instance has at most 4 sends in flight to one endpoint: the 12 take a few rounds.
      for (let round = 0; round < 10; round++) {
        const done = await Promise.all([a.runJobs(), runOnB(), a.runJobs(), runOnB()]);
        clock.advance(120);
        if (done.every((n) => n === 0)) break;
      }
    } finally {
      receiver.setFallback({ status: 200 });
    }
    const received = receiver.at('/instances');
    const perEvent = new Map<string, number>();
    for (const r of received)
      perEvent.set(r.headers['webhook-id'] as string, (perEvent.get(r.headers['webhook-id'] as string) ?? 0) + 1);
    expect(perEvent.size).toBe(payments);
    expect(received).toHaveLength(payments + 4);
    for (const [eventId, count] of perEvent) {
      const detail = await a.call('GET', `/events/${eventId}`, { apiKey: m.apiKey });
      // Every request the receiver saw is one logged attempt: none sent twice, none unlogged.
      expect(detail.body.attempts).toHaveLength(count);
      expect(detail.body.attempts.at(-1).statusCode).toBe(200);
    }
  });
});
