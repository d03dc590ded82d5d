import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ENDPOINT_PLACES } from '../../src/modules/notifications/endpoint-places.js';
import { useGateway } from '../helpers/gateway.js';
import { pendingDelivery } from './deliveries.js';
import { startReceiver, type Receiver } from './receiver.js';

// A receiver with more notifications due than it may have sends in flight (a merchant whose payments
// come faster than one pass of the loop sends them): as each send ends, the sweep claims the next ones,
// and a receiver that keeps answering gets more of them at once, up to ENDPOINT_PLACES.MOST.
const gw = useGateway();
let receiver: Receiver;
const DUE = 3 * ENDPOINT_PLACES.MOST;

beforeEach(async () => {
  receiver = await startReceiver();
  receiver.setFallback({ status: 200, delayMs: 200 });
  const m = await gw.merchant();
  for (let i = 0; i < DUE; i++)
    await pendingDelivery(gw.db, {
      merchantId: m.merchantId,
      url: `${receiver.url}/busy`,
      orderKey: `busy-${i}`,
      due: gw.clock.now(),
    });
});
afterEach(async () => {
  await gw.gateway.app.ctx.jobs.stop();
  await receiver.close();
});

const stillPending = async () =>
  (
    await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
      where status = 'pending' and url = ${`${receiver.url}/busy`}`.execute(gw.db)
  ).rows[0].n;

it(`delivers all of its due notifications in one pass of the loop, more at once as it answers, never more than ${ENDPOINT_PLACES.MOST}`, async () => {
  await gw.runJobs();
  expect(receiver.at('/busy')).toHaveLength(DUE);
  expect(await stillPending()).toBe(0);
  expect(receiver.mostAtOnce()).toBe(ENDPOINT_PLACES.MOST);
});

it(`gets no more than ${ENDPOINT_PLACES.START} at once while it answers errors; each is tried once and backs off`, async () => {
  receiver.setFallback({ status: 503, delayMs: 20 });
  await gw.runJobs();
  expect(receiver.at('/busy')).toHaveLength(DUE);
  expect(receiver.mostAtOnce()).toBe(ENDPOINT_PLACES.START);
  expect(await stillPending()).toBe(DUE);
});

it('claims no more once the loop stops: stop() waits for the sends in flight, the rest stay due for the next start', async () => {
  receiver.setFallback({ status: 200, delayMs: 1000 });
  gw.gateway.app.ctx.jobs.start();
  await expect.poll(() => receiver.at('/busy').length, { timeout: 10_000 }).toBe(ENDPOINT_PLACES.START);
  await gw.gateway.app.ctx.jobs.stop();
  // The sends under way when it stopped were answered and settled; nothing was claimed after them.
  expect(receiver.at('/busy')).toHaveLength(ENDPOINT_PLACES.START);
  expect(await stillPending()).toBe(DUE - ENDPOINT_PLACES.START);
});
