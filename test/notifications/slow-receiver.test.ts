import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SENDS_IN_FLIGHT } from '../../src/modules/notifications/deliver-due.js';
import { ENDPOINT_PLACES } from '../../src/modules/notifications/endpoint-places.js';
import { startTestGateway, useGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from '../payments/fixtures.js';
import { pendingDelivery } from './deliveries.js';
import { startReceiver, type Receiver } from './receiver.js';
import { knock } from '../helpers/lifecycle.js';

// The background loop, as a running gateway has it: a receiver that never answers within the time-out
// (20 s here) must not hold anything else up while its sends wait.
const gw = useGateway({ env: { WEBHOOK_TIMEOUT_MS: '20000' } });
let prompt: Receiver;
let silent: Receiver;
beforeEach(async () => {
  prompt = await startReceiver();
  silent = await startReceiver();
  silent.setFallback({ status: 200, hang: true });
  gw.gateway.app.ctx.jobs.start();
});
afterEach(async () => {
  // Dropping the silent receiver's connections ends its sends at once, so stop() has nothing to wait for.
  await silent.close();
  await gw.gateway.app.ctx.jobs.stop();
  await prompt.close();
});

async function payWithNotifyUrl(m: TestMerchant, url: string, on: TestGateway = gw): Promise<void> {
  const id = await createRequest(on, m);
  const res = await on.call('POST', `/payments/h2h/${id}`, {
    apiKey: m.apiKey,
    body: { ...h2hCard(CARDS.visa), notifyUrl: url },
  });
  expect(res.status, res.text).toBe(200);
}

async function attemptsOf(m: TestMerchant, eventId: string): Promise<{ statusCode: number | null }[]> {
  const res = await gw.call('GET', `/events/${eventId}`, { apiKey: m.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.attempts;
}

/** The pending deliveries whose URL is `like` this: claimed (a send under way) and never tried. */
const pendingTo = async (like: string) => {
  const { rows } = await sql<{ claimed: number; waiting: number }>`
    select count(*) filter (where locked_until > ${gw.clock.now()})::int as claimed,
           count(*) filter (where attempts = 0)::int as waiting
    from webhook_deliveries where status = 'pending' and url like ${like}`.execute(gw.db);
  return rows[0];
};

/** A few more beats of the loop (500 ms each), to see that they claim nothing more. */
const beats = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('a receiver that never answers', () => {
  it("holds up no other merchant's notifications while its send waits", async () => {
    const slowMerchant = await gw.merchant();
    await payWithNotifyUrl(slowMerchant, `${silent.url}/never`);
    await expect.poll(() => silent.at('/never').length, { timeout: 10_000 }).toBe(1);

    const other = await gw.merchant();
    await payWithNotifyUrl(other, `${prompt.url}/other`);
    // Well inside the 20 s the silent receiver's send still has to run.
    await expect.poll(() => prompt.at('/other').length, { timeout: 8_000 }).toBe(1);
    expect(silent.at('/never')).toHaveLength(1);
  });

  it(`has at most ${ENDPOINT_PLACES.START} sends in flight, its other deliveries wait unclaimed and take no place from other receivers`, async () => {
    const m = await gw.merchant();
    // Different paths, one endpoint (scheme, host and port): the cap is per endpoint, as the sender's connections are.
    for (let i = 0; i < 10; i++) await payWithNotifyUrl(m, `${silent.url}/many/${i}?n=${i}`);
    const url = `${silent.url}/many/%`;
    await expect.poll(async () => (await pendingTo(url)).claimed, { timeout: 10_000 }).toBe(ENDPOINT_PLACES.START);
    await beats();
    expect(await pendingTo(url)).toEqual({ claimed: ENDPOINT_PLACES.START, waiting: 10 - ENDPOINT_PLACES.START });

    await payWithNotifyUrl(await gw.merchant(), `${prompt.url}/meanwhile`);
    await expect.poll(() => prompt.at('/meanwhile').length, { timeout: 8_000 }).toBe(1);
  });
});

it(`has at most ${SENDS_IN_FLIGHT} sends in flight in all; the deliveries after them wait, unclaimed`, async () => {
  // Enough silent receivers for every place, each with as many deliveries as it may have in flight.
  const receivers = await Promise.all(
    Array.from({ length: Math.ceil(SENDS_IN_FLIGHT / ENDPOINT_PLACES.START) }, () => startReceiver()),
  );
  try {
    const m = await gw.merchant();
    for (const receiver of receivers) {
      receiver.setFallback({ status: 200, hang: true });
      for (let i = 0; i < ENDPOINT_PLACES.START; i++) await payWithNotifyUrl(m, `${receiver.url}/all`);
    }
    const payments = receivers.length * ENDPOINT_PLACES.START;
    const all = '%/all';
    await expect.poll(async () => (await pendingTo(all)).claimed, { timeout: 10_000 }).toBe(SENDS_IN_FLIGHT);
    await beats();
    expect(await pendingTo(all)).toEqual({ claimed: SENDS_IN_FLIGHT, waiting: payments - SENDS_IN_FLIGHT });
  } finally {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  }
});

it('stop() waits for the sends in flight, and each is logged as an attempt', async () => {
  const m = await gw.merchant();
  prompt.setFallback({ status: 200, delayMs: 800 });
  await payWithNotifyUrl(m, `${prompt.url}/slow`);
  await expect.poll(() => prompt.at('/slow').length, { timeout: 10_000 }).toBe(1);
  await gw.gateway.app.ctx.jobs.stop();
  const eventId = prompt.at('/slow')[0].headers['webhook-id'] as string;
  expect(await attemptsOf(m, eventId)).toMatchObject([{ statusCode: 200 }]);
});

it('a stopping gateway sends nothing on its closing HTTP client: its loop stops first', async () => {
  const own = await startTestGateway({ env: { WEBHOOK_TIMEOUT_MS: '20000' } });
  const held = await startReceiver();
  held.setFallback({ status: 200, delayMs: 2000 });
  let closing: Promise<void> | undefined;
  try {
    own.gateway.app.ctx.jobs.start();
    const m = await own.merchant();
    await payWithNotifyUrl(m, `${held.url}/held`, own);
    await expect.poll(() => held.at('/held').length, { timeout: 10_000 }).toBe(1);

    // A delivery that comes due only while the gateway stops, and the held send keeps the HTTP client
    // closing for 2 s (4 beats of the loop): a loop still beating then would attempt it on a closed client.
    const dueLater = new Date(own.clock.now().getTime() + 60_000);
    await pendingDelivery(own.db, {
      merchantId: m.merchantId,
      url: `${prompt.url}/later`,
      orderKey: 'later',
      due: dueLater,
    });
    closing = own.close();
    own.clock.advance(120);
    await closing;

    // Sent by a pass already under way, or left for the next start: never attempted and failed.
    expect(own.logs()).not.toContain('notification not accepted');
  } finally {
    await (closing ?? own.close());
    await held.close();
  }
});

it('a stopping gateway stops accepting at once, while its loop still waits for a send in flight', async () => {
  const own = await startTestGateway({ env: { WEBHOOK_TIMEOUT_MS: '20000' } });
  const hung = await startReceiver();
  hung.setFallback({ status: 200, hang: true });
  let closing: Promise<void> | undefined;
  try {
    own.gateway.app.ctx.jobs.start();
    const m = await own.merchant();
    await payWithNotifyUrl(m, `${hung.url}/hung`, own);
    await expect.poll(() => hung.at('/hung').length, { timeout: 10_000 }).toBe(1);

    // The send hangs for up to 20 s, and the loop's stop waits for it; the listener must not.
    closing = own.close();
    await expect.poll(() => knock(own.url), { timeout: 10_000 }).toBe('ECONNREFUSED');
  } finally {
    await hung.close(); // ends the hung send, so the stop completes
    await (closing ?? own.close());
  }
});
