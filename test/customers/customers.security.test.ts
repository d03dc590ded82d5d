import { describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';

const gw = useGateway();

const body = { name: 'Private Person', email: 'private@example.com', memberId: 'p-1' };

describe('merchant isolation', () => {
  it("another merchant's customer does not exist for the caller: 404 on read and change, absent from lists", async () => {
    const owner = await gw.merchant();
    const intruder = await gw.merchant();
    const { body: customer } = await gw.call('POST', '/customers', { apiKey: owner.apiKey, body });

    const read = await gw.call('GET', `/customers/${customer.id}`, { apiKey: intruder.apiKey });
    expect(read.status).toBe(404);
    expect(read.text).not.toContain('Private Person');

    const change = await gw.call('PATCH', `/customers/${customer.id}`, {
      apiKey: intruder.apiKey,
      body: { name: 'Hijacked' },
    });
    expect(change.status).toBe(404);
    expect((await gw.call('GET', `/customers/${customer.id}`, { apiKey: owner.apiKey })).body.name).toBe(
      'Private Person',
    );

    const list = await gw.call('GET', '/customers', { apiKey: intruder.apiKey });
    expect(list.body).toEqual({ data: [], hasMore: false, nextCursor: null });
    const filtered = await gw.call('GET', '/customers?memberId=p-1', { apiKey: intruder.apiKey });
    expect(filtered.body.data).toEqual([]);
  });

  it("a cursor from another merchant's list reveals nothing of theirs", async () => {
    const owner = await gw.merchant();
    const intruder = await gw.merchant();
    for (let i = 0; i < 3; i++)
      await gw.call('POST', '/customers', { apiKey: owner.apiKey, body: { ...body, memberId: `c-${i}` } });
    const page = await gw.call('GET', '/customers?limit=1', { apiKey: owner.apiKey });
    const res = await gw.call('GET', `/customers?cursor=${page.body.nextCursor}`, { apiKey: intruder.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('test and live modes', () => {
  it('test keys see only test customers, live keys only live customers', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const { body: testCustomer } = await gw.call('POST', '/customers', { apiKey: m.apiKey, body });
    const { body: liveCustomer } = await gw.call('POST', '/customers', { apiKey: m.liveKey, body });
    expect(liveCustomer.id).not.toBe(testCustomer.id);

    expect((await gw.call('GET', `/customers/${testCustomer.id}`, { apiKey: m.liveKey })).status).toBe(404);
    expect((await gw.call('GET', `/customers/${liveCustomer.id}`, { apiKey: m.apiKey })).status).toBe(404);
    expect(
      (await gw.call('PATCH', `/customers/${liveCustomer.id}`, { apiKey: m.apiKey, body: { name: 'X' } })).status,
    ).toBe(404);

    const testList = await gw.call('GET', '/customers', { apiKey: m.apiKey });
    expect(testList.body.data.map((c: { id: number }) => c.id)).toEqual([testCustomer.id]);
    const liveList = await gw.call('GET', '/customers', { apiKey: m.liveKey });
    expect(liveList.body.data.map((c: { id: number }) => c.id)).toEqual([liveCustomer.id]);

    const rows = await gw.db
      .selectFrom('customers')
      .select(['id', 'livemode'])
      .where('merchant_id', '=', m.merchantId)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: testCustomer.id, livemode: false },
      { id: liveCustomer.id, livemode: true },
    ]);
  });
});
