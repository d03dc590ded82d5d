/**
 * Payer defaults outside the payment bodies' bounds are refused with the spec's codes, naming the
 * field under `payer`, and nothing is stored; a customer's country follows the payer field's rule.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { expectErrorGuide, requestBody } from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const create = (body: unknown) => gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body });
const countRequests = async () =>
  Number(
    (
      await gw.db
        .selectFrom('payment_requests')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_id', '=', m.merchantId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('payer defaults at their bounds', () => {
  it('accepts each field at its longest', async () => {
    const res = await create(
      requestBody({
        payer: {
          name: 'n'.repeat(100),
          email: `${'e'.repeat(88)}@example.com`,
          phoneNumber: '1'.repeat(14),
          address: 'a'.repeat(100),
          city: 'c'.repeat(50),
          state: 's',
          postalCode: 'p'.repeat(10),
          country: 'IN',
        },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.payer.phoneNumber).toBe('1'.repeat(14));
  });

  it.each([
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'payer.name'],
    ['an empty name', { name: '' }, 'payer.name'],
    ['an e-mail that is not one', { email: 'not-an-email' }, 'payer.email'],
    ['an e-mail of 101 characters', { email: `${'e'.repeat(89)}@example.com` }, 'payer.email'],
    ['a phone of 9 digits', { phoneNumber: '123456789' }, 'payer.phoneNumber'],
    ['a phone of 15 digits', { phoneNumber: '1'.repeat(15) }, 'payer.phoneNumber'],
    ['a phone with a plus', { phoneNumber: '+919812345678' }, 'payer.phoneNumber'],
    ['an address of 101 characters', { address: 'a'.repeat(101) }, 'payer.address'],
    ['a city of 51 characters', { city: 'c'.repeat(51) }, 'payer.city'],
    ['an empty state', { state: '' }, 'payer.state'],
    ['a postal code of 11 characters', { postalCode: 'p'.repeat(11) }, 'payer.postalCode'],
    ['a country of 3 letters', { country: 'IND' }, 'payer.country'],
    ['a country of 1 letter', { country: 'I' }, 'payer.country'],
    ['a number for a name', { name: 42 }, 'payer.name'],
  ])('refuses %s with 400 INVALID_FORMAT naming it, and stores nothing', async (_name, payer, field) => {
    const before = await countRequests();
    const res = await create(requestBody({ payer }));
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details.field).toBe(field);
    expect(await countRequests()).toBe(before);
  });

  it('refuses a payer that is not an object', async () => {
    const res = await create(requestBody({ payer: 'Asha Rao' }));
    expectErrorGuide(res, 400, 'INVALID_FORMAT', 'VAL002');
    expect(res.body.details.field).toBe('payer');
  });

  it("refuses a customer's country of other than 2 characters, and clears it with null", async () => {
    const bad = await gw.call('POST', '/customers', {
      apiKey: m.apiKey,
      body: { name: 'Ada', email: 'ada@example.com', country: 'GBR' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual({ field: 'country', value: 'GBR' });
    const created = await gw.call('POST', '/customers', {
      apiKey: m.apiKey,
      body: { name: 'Ada', email: 'ada@example.com', country: 'GB' },
    });
    expect(created.body.country).toBe('GB');
    const cleared = await gw.call('PATCH', `/customers/${created.body.id}`, {
      apiKey: m.apiKey,
      body: { country: null },
    });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.country).toBeNull();
  });
});
