import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENDPOINT_PLACES } from '../../src/modules/notifications/endpoint-places.js';
import { claimDueDeliveries } from '../../src/modules/notifications/repository.js';
import { useGateway } from '../helpers/gateway.js';
import { pendingDelivery } from './deliveries.js';

// The delivery claim on its own, against the real store: which due deliveries one beat of the delivery
// sweep takes, given the sends the instance has in flight.
const gw = useGateway();

let payments = 0;
/** A pending delivery to `url`, of a payment of its own unless `orderKey` says, due `dueSecondsAgo` before now. */
const delivery = (url: string, dueSecondsAgo: number, attempts = 0, orderKey = `payment-${++payments}`) =>
  pendingDelivery(gw.db, {
    merchantId: 1,
    url,
    orderKey,
    due: new Date(gw.clock.now().getTime() - dueSecondsAgo * 1000),
    attempts,
  });

/** What one claim takes, in id order (the statement's own order is not its contract), given the free places of endpoints that differ from an idle one's. */
const claim = async (limit: number, free: Record<string, number> = {}) => {
  const places = { free: new Map(Object.entries(free)), otherwise: ENDPOINT_PLACES.START };
  const claimed = await claimDueDeliveries(gw.db, gw.clock.now(), 60, limit, places);
  return claimed.sort((a, b) => a.id - b.id);
};

describe('a delivery claim', () => {
  it('takes the delivery due the longest first, whatever the endpoint and the order they were made in', async () => {
    const fresh = await delivery('https://a.example/hook', 1);
    const retry = await delivery('https://b.example/hook', 60, 1);
    const newest = await delivery('https://c.example/hook', 5);
    expect((await claim(1)).map((d) => d.id)).toEqual([retry]);
    expect((await claim(2)).map((d) => d.id)).toEqual([fresh, newest]);
    expect(await claim(2)).toEqual([]);
  });

  it("takes nothing of a full endpoint and no more than an endpoint's free places, the oldest first", async () => {
    // One endpoint (the URL's origin), whatever the path, the query and the spelling.
    const urls = ['https://full.example:8443/a', 'https://FULL.example:8443/b?x=1', 'HTTPS://full.example:8443'];
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await delivery(urls[i % 3], 60 - i));
    const other = await delivery('https://full.example:443/hook', 1);

    const full = await claim(50, { 'https://full.example:8443': 0 });
    expect(full.map((d) => [d.id, d.endpoint])).toEqual([[other, 'https://full.example']]);

    const one = await claim(50, { 'https://full.example:8443': 1 });
    expect(one.map((d) => [d.id, d.endpoint])).toEqual([[ids[0], 'https://full.example:8443']]);

    const rest = await claim(50);
    expect(rest.map((d) => d.id)).toEqual(ids.slice(1, 5));
  });

  it('takes as many as a widened endpoint has free, beside idle endpoints that have the first width', async () => {
    const wide = [];
    for (let i = 0; i < 12; i++) wide.push(await delivery('https://wide.example/hook', 60 - i));
    const narrow = [];
    for (let i = 0; i < 6; i++) narrow.push(await delivery('https://narrow.example/hook', 30 - i));

    const mine = ['https://wide.example', 'https://narrow.example'];
    const claimed = (await claim(50, { 'https://wide.example': 10 })).filter((d) => mine.includes(d.endpoint));
    expect(claimed.map((d) => d.id)).toEqual([...wide.slice(0, 10), ...narrow.slice(0, ENDPOINT_PLACES.START)]);
  });

  it("sends one payment's events in order: the next waits while the earlier is untried or in flight, not while it backs off", async () => {
    const first = await delivery('https://order.example/a', 30, 0, 'one-payment');
    const second = await delivery('https://elsewhere.example/b', 30, 0, 'one-payment');
    // Of this payment's (the tests before leave deliveries of their own).
    const taken = async () => (await claim(50)).map((d) => d.id).filter((id) => id === first || id === second);
    expect(await taken()).toEqual([first]);
    // The first in flight: the second still waits.
    expect(await taken()).toEqual([]);
    // The first failed and backs off: the second goes, so one broken event does not hold the others.
    const inAMinute = new Date(gw.clock.now().getTime() + 60_000);
    await sql`update webhook_deliveries set next_attempt_at = ${inAMinute}, locked_until = null
      where id = ${first}`.execute(gw.db);
    expect(await taken()).toEqual([second]);
  });
});
