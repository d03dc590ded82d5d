import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  claimDueDeliveries,
  insertDeliveries,
  type EndpointPlaces,
} from '../../src/modules/notifications/repository.js';
import { useGateway } from '../helpers/gateway.js';

// The delivery claim on its own, against the real store: which due deliveries one beat of the delivery
// sweep takes, given the sends the instance has in flight.
const gw = useGateway();

let payments = 0;
/** A pending delivery to `url`, of a payment of its own, due `dueSecondsAgo` before the clock's now. */
async function delivery(url: string, dueSecondsAgo: number, attempts = 0): Promise<number> {
  const now = gw.clock.now();
  const { rows } = await sql<{ id: number }>`
    insert into outbox_events (merchant_id, livemode, type, object_id, payload, created_at)
    values (1, false, 'payment.succeeded', 1, '{}', ${now}) returning id`.execute(gw.db);
  const due = new Date(now.getTime() - dueSecondsAgo * 1000);
  const scope = { merchantId: 1, livemode: false };
  await insertDeliveries(gw.db, [{ ...scope, eventId: rows[0].id, url, orderKey: `payment-${++payments}` }], due);
  const [made] = (
    await sql<{ id: number }>`update webhook_deliveries set attempts = ${attempts}
      where event_id = ${rows[0].id} returning id`.execute(gw.db)
  ).rows;
  return made.id;
}

/** What one claim takes, in id order (the statement's own order is not its contract). */
const claim = async (limit: number, inFlight: Record<string, number> = {}) => {
  const places: EndpointPlaces = { perEndpoint: 4, inFlight: new Map(Object.entries(inFlight)) };
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

    const full = await claim(50, { 'https://full.example:8443': 4 });
    expect(full.map((d) => [d.id, d.endpoint])).toEqual([[other, 'https://full.example']]);

    const one = await claim(50, { 'https://full.example:8443': 3 });
    expect(one.map((d) => [d.id, d.endpoint])).toEqual([[ids[0], 'https://full.example:8443']]);

    const rest = await claim(50);
    expect(rest.map((d) => d.id)).toEqual(ids.slice(1, 5));
  });
});
