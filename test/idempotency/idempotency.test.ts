import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { refuseWrites } from '../helpers/faults.js';
import { useGateway, type CallResult, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from '../payments/fixtures.js';

const gw = useGateway();

const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

function post(
  m: TestMerchant,
  key: string | undefined,
  body: unknown = customer,
  options: { path?: string; apiKey?: string; header?: string } = {},
) {
  return gw.call('POST', options.path ?? '/customers', {
    apiKey: options.apiKey ?? m.apiKey,
    headers: key === undefined ? {} : { [options.header ?? 'x-idempotency-key']: key },
    body,
  });
}

const keysOf = async (m: TestMerchant) =>
  (await gw.db.selectFrom('idempotency_keys').select('key').where('merchant_id', '=', m.merchantId).execute()).map(
    (row) => row.key,
  );

const customerCount = async (m: TestMerchant) =>
  (await gw.db.selectFrom('customers').select('id').where('merchant_id', '=', m.merchantId).execute()).length;

function expectReplayOf(replay: CallResult, first: CallResult) {
  expect(replay.status).toBe(first.status);
  expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

describe('same key, same request', () => {
  it('replays the first response byte for byte, marked Idempotent-Replayed, without a second record', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const first = await post(m, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    gw.clock.advance(3600);
    const replay = await post(m, key);
    expectReplayOf(replay, first);
    expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await customerCount(m)).toBe(1);
  });

  it('accepts the Idempotency-Key header as well, and /v2 is the same request', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const first = await post(m, key, customer, { header: 'idempotency-key' });
    const viaOtherHeader = await post(m, key, customer, { header: 'x-idempotency-key', path: '/v2/customers' });
    expectReplayOf(viaOtherHeader, first);
    expect(await customerCount(m)).toBe(1);
  });

  it('20 concurrent identical requests create exactly one customer; the rest replay it or answer 409', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(m, key)));

    expect(await customerCount(m)).toBe(1);
    const ok = results.filter((r) => r.status === 200);
    const inUse = results.filter((r) => r.status === 409);
    expect(ok.length + inUse.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    for (const r of inUse) {
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_USE', code: 'IDEM001' });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    // Once the first finished, everyone gets its answer.
    expect((await post(m, key)).text).toBe(ok[0].text);
  });

  it('20 concurrent identical POST /payment-requests create exactly one request', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const body = { amount: 42.5, currency: 'EUR', reference: `idem-${key}` };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body, headers: { 'X-Idempotency-Key': key } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length + results.filter((r) => r.status === 409).length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    const rows = await gw.db
      .selectFrom('payment_requests')
      .select('id')
      .where('merchant_id', '=', m.merchantId)
      .where('reference', '=', body.reference)
      .execute();
    expect(rows).toEqual([{ id: ok[0].body.paymentRequestId }]);
    // Error-guide shape off the /payments and /customers paths.
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_USE', code: 'IDEM001' });
  });
});

describe('same key, different request', () => {
  it('answers 422 for another body, another path or another key mode, and changes nothing', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const key = randomUUID();
    const first = await post(m, key);
    expect(first.status).toBe(200);

    const otherBody = await post(m, key, { ...customer, name: 'Someone Else' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(otherBody.body).toMatchObject({
      error: 'IDEMPOTENCY_KEY_MISMATCH',
      code: 'IDEM002',
      details: { idempotencyKey: key, firstRequest: 'POST /customers' },
      requestId: otherBody.headers.get('x-request-id'),
    });
    expect((await post(m, key, customer, { path: '/customers?source=retry' })).status).toBe(422);
    // A live key never receives the test-mode answer stored under the same key.
    expect((await post(m, key, customer, { apiKey: m.liveKey })).status).toBe(422);

    expect(await customerCount(m)).toBe(1);
    expectReplayOf(await post(m, key), first);
  });
});

describe('what "the same request" is', () => {
  it('the same body as the route reads it: spacing, member order and ignored members make no other request', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const first = await post(m, key, { ...customer, phone: '4915112345678' });
    expect(first.status, first.text).toBe(200);
    const sameRequest = [
      JSON.stringify({ phone: '4915112345678', ...customer }, null, 2),
      { ...customer, phone: '4915112345678', nickname: 'ignored, never stored' },
    ];
    for (const body of sameRequest) expectReplayOf(await post(m, key, body), first);
    // A member the route reads is another request, also when its value only differs in case.
    expect((await post(m, key, { ...customer, phone: '4915112345670' })).status).toBe(422);
    expect((await post(m, key, { ...customer, phone: '4915112345678', name: 'ada lovelace' })).status).toBe(422);
    expect(await customerCount(m)).toBe(1);
  });

  it('a card payment: another card is another request; a retry that differs only in its CVV is the same', async () => {
    const m = await gw.merchant();
    const paymentRequestId = await createRequest(gw, m);
    const key = randomUUID();
    const path = `/payments/h2h/${paymentRequestId}`;
    const first = await post(m, key, h2hCard(CARDS.visa), { path });
    expect(first.status, first.text).toBe(200);
    expect((await post(m, key, h2hCard(CARDS.mastercard), { path })).status).toBe(422);
    // The CVV is kept in no form, not even as part of a digest: it cannot tell two requests apart.
    expectReplayOf(await post(m, key, { ...h2hCard(CARDS.visa), cvv: '999' }, { path }), first);
  });
});

describe('scope and lifetime', () => {
  it('keys are per merchant: the same key from two merchants makes two records', async () => {
    const a = await gw.merchant();
    const b = await gw.merchant();
    const key = 'order-42';
    const fromA = await post(a, key);
    const fromB = await post(b, key);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect(fromB.body.ownerId).toBe(b.merchantId);
  });

  it('a key is kept 24 hours; after that the same key runs the request again', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const first = await post(m, key);
    gw.clock.advance(24 * 3600 - 1);
    expect((await post(m, key)).headers.get('idempotent-replayed')).toBe('true');
    gw.clock.advance(2);
    const fresh = await post(m, key);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(await customerCount(m)).toBe(2);
    // And the renewed key replays the new answer.
    expectReplayOf(await post(m, key), fresh);
  });

  it('expired keys of every merchant are purged by the job loop, also of a merchant who sends nothing more', async () => {
    const quiet = await gw.merchant();
    const busy = await gw.merchant();
    await post(quiet, 'old-1');
    await post(quiet, 'old-2');
    gw.clock.advance(24 * 3600 - 60);
    await post(busy, 'recent');
    gw.clock.advance(61);
    await gw.runJobs();
    expect(await keysOf(quiet)).toEqual([]);
    expect(await keysOf(busy)).toEqual(['recent']);
  });

  it('the purge deletes a backlog in bounded batches until none is left', async () => {
    const m = await gw.merchant();
    await post(m, 'template');
    // A backlog larger than one batch: 1,200 expired copies of the stored key.
    await sql`insert into idempotency_keys (merchant_id, key, fingerprint, request_method, request_path, claim_token,
        claimed_at, expires_at, response_status, response_content_type, response_body)
      select merchant_id, key || '-' || n, fingerprint, request_method, request_path, claim_token, claimed_at,
        expires_at, response_status, response_content_type, response_body
      from idempotency_keys, generate_series(1, 1200) n
      where merchant_id = ${m.merchantId} and key = 'template'`.execute(gw.db);
    gw.clock.advance(24 * 3600 + 1);
    const counts: number[] = [];
    for (let left = (await keysOf(m)).length; left > 0 && counts.length < 10; left = (await keysOf(m)).length) {
      counts.push(left);
      await gw.runJobs();
    }
    expect(await keysOf(m)).toEqual([]);
    // One run of the sweep deleted part of the backlog, never all of it at once.
    expect(counts.length).toBeGreaterThan(2);
    expect(counts[0]).toBe(1201);
  });
});

describe('the key itself', () => {
  it('up to 255 characters; longer or empty is 400 INVALID_FORMAT and nothing runs', async () => {
    const m = await gw.merchant();
    expect((await post(m, 'k'.repeat(255))).status).toBe(200);
    for (const key of ['k'.repeat(256), '']) {
      const res = await post(m, key);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        error: 'INVALID_FORMAT',
        code: 'VAL002',
        details: { field: 'X-Idempotency-Key' },
      });
    }
    expect(await customerCount(m)).toBe(1);
  });

  it('the two header names must agree when both are sent', async () => {
    const m = await gw.merchant();
    const res = await gw.call('POST', '/customers', {
      apiKey: m.apiKey,
      headers: { 'x-idempotency-key': 'one', 'idempotency-key': 'two' },
      body: customer,
    });
    expect(res.status).toBe(400);
    expect(res.body.details.field).toBe('Idempotency-Key');
    expect(await customerCount(m)).toBe(0);
  });
});

describe('what is stored', () => {
  it('a request rejected by validation does not use up the key', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    const invalid = await post(m, key, { name: 'No Email' });
    expect(invalid.status).toBe(400);
    const valid = await post(m, key);
    expect(valid.status).toBe(200);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
    expect(await customerCount(m)).toBe(1);
  });

  it('a 4xx domain error is final: it is stored and replayed', async () => {
    const m = await gw.merchant();
    const { body: holder } = await post(m, undefined, { ...customer, memberId: 'taken' });
    const key = randomUUID();
    const conflict = await post(m, key, { ...customer, memberId: 'taken' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');

    await gw.call('PATCH', `/customers/${holder.id}`, { apiKey: m.apiKey, body: { memberId: null } });
    expectReplayOf(await post(m, key, { ...customer, memberId: 'taken' }), conflict);
    expect(await customerCount(m)).toBe(1);
  });

  it('a 5xx is not stored: the key is released and a retry runs again', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    await sql`alter table customers rename to customers_offline`.execute(gw.db);
    let failed: CallResult;
    try {
      failed = await post(m, key);
    } finally {
      await sql`alter table customers_offline rename to customers`.execute(gw.db);
    }
    expect(failed.status).toBe(500);
    expect(failed.body.error).toBe('INTERNAL_ERROR');
    expect(failed.text).not.toMatch(/relation|does not exist|insert into/i);

    const retry = await post(m, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await customerCount(m)).toBe(1);
  });

  it('a request still in flight blocks its key with 409; a claim abandoned for 60 s is taken over', async () => {
    const m = await gw.merchant();
    // A finished request gives us a real stored row; copying it as an unfinished claim under
    // another key is exactly what an instance that crashed mid-request leaves behind.
    await post(m, 'template');
    const template = await gw.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('merchant_id', '=', m.merchantId)
      .where('key', '=', 'template')
      .executeTakeFirstOrThrow();
    await gw.db
      .insertInto('idempotency_keys')
      .values({
        ...template,
        key: 'crashed',
        claim_token: 'lost',
        claimed_at: gw.clock.now(),
        response_status: null,
        response_content_type: null,
        response_body: null,
        // It died before its create committed (the next test: after).
        recovery_object_id: null,
      })
      .execute();

    const blocked = await post(m, 'crashed');
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toBe('IDEMPOTENCY_KEY_IN_USE');
    gw.clock.advance(59);
    expect((await post(m, 'crashed')).status).toBe(409);
    // A different request cannot take an abandoned key over.
    gw.clock.advance(2);
    expect((await post(m, 'crashed', { ...customer, name: 'Other' })).status).toBe(422);

    const takenOver = await post(m, 'crashed');
    expect(takenOver.status).toBe(200);
    expect(takenOver.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(await post(m, 'crashed'), takenOver);
    expect(await customerCount(m)).toBe(2);
  });

  it('a create whose answer was lost in a crash after its commit: the retry answers with that object, creating none', async () => {
    const m = await gw.merchant();
    const requests = async () =>
      (await gw.db.selectFrom('payment_requests').select('id').where('merchant_id', '=', m.merchantId).execute())
        .length;
    const creates = [
      { path: '/customers', body: customer, id: (r: CallResult) => r.body.id, count: () => customerCount(m) },
      {
        path: '/payment-requests',
        body: { amount: 12.5, currency: 'EUR', reference: 'lost-answer' },
        id: (r: CallResult) => r.body.paymentRequestId,
        count: requests,
      },
    ];
    for (const create of creates) {
      const key = randomUUID();
      const first = await post(m, key, create.body, { path: create.path });
      expect(first.status, first.text).toBe(200);
      // What a process killed between the create's commit and storing its answer leaves: the claim
      // of an instance that is gone, with the recovery point the create's transaction wrote.
      const lost = await gw.db
        .updateTable('idempotency_keys')
        .set({ response_status: null, response_content_type: null, response_body: null, holder: 'gone' })
        .where('merchant_id', '=', m.merchantId)
        .where('key', '=', key)
        .where('recovery_object_id', '=', create.id(first))
        .executeTakeFirst();
      expect(lost.numUpdatedRows).toBe(1n);

      const retried = await post(m, key, create.body, { path: create.path });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(create.id(retried)).toBe(create.id(first));
      expect(await create.count()).toBe(1);
      expectReplayOf(await post(m, key, create.body, { path: create.path }), retried);
    }
  });

  it('a store that refuses to keep the answer: the answer goes out, the key waits, and once the store is back the retry gets the same object', async () => {
    const m = await gw.merchant();
    const key = randomUUID();
    // The store fails between the create's commit and the keeping of its answer (a failover, a full
    // disk): every write that would finish this key's claim (store the answer, or let the key go) fails.
    const storeIsBack = await refuseWrites(gw.db, {
      name: 'refuse_to_finish',
      table: 'idempotency_keys',
      event: 'update of response_status, holder',
      when: `old.key = '${key}'`,
      message: 'the store is unavailable',
    });
    try {
      const first = await post(m, key);
      expect(first.status, first.text).toBe(200);
      expect(gw.logs()).toContain('could not store the idempotent response');
      // The claim still names this live instance: a retry now is told the request is in flight,
      // never run a second time.
      expect((await post(m, key)).status).toBe(409);

      await storeIsBack();
      // The gateway lets the key go once the store answers again (it tries every second), keeping the
      // recovery point: the retry answers with the customer the first request created.
      let retried = await post(m, key);
      for (let tries = 0; retried.status === 409 && tries < 50; tries++) {
        await new Promise((wake) => setTimeout(wake, 200));
        retried = await post(m, key);
      }
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body.id).toBe(first.body.id);
      expect(await customerCount(m)).toBe(1);
      expectReplayOf(await post(m, key), retried);
    } finally {
      await storeIsBack();
    }
  });

  it('requests without a key leave nothing behind', async () => {
    const m = await gw.merchant();
    await post(m, undefined);
    await post(m, undefined);
    expect(await customerCount(m)).toBe(2);
    const rows = await gw.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('merchant_id', '=', m.merchantId)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('keys stored before fingerprints were keyed (migration 0023 removed their digests)', () => {
  it('until they expire they stand for any request with their method and path: replayed, recovered, 422 elsewhere', async () => {
    const m = await gw.merchant();
    const forget = (key: string, changes: Record<string, null | string> = {}) =>
      gw.db
        .updateTable('idempotency_keys')
        .set({ fingerprint: null, ...changes })
        .where('merchant_id', '=', m.merchantId)
        .where('key', '=', key)
        .execute();
    const key = randomUUID();
    const first = await post(m, key);
    await forget(key);
    expectReplayOf(await post(m, key), first);
    expectReplayOf(await post(m, key, { ...customer, name: 'Someone Else' }), first);
    expect((await post(m, key, customer, { path: '/customers?source=retry' })).status).toBe(422);

    // A create whose answer a crash lost before the upgrade: its retry answers with what it created.
    const lostKey = randomUUID();
    const lost = await post(m, lostKey);
    await forget(lostKey, { response_status: null, response_content_type: null, response_body: null, holder: 'gone' });
    const retried = await post(m, lostKey);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.id).toBe(lost.body.id);
    expect(await customerCount(m)).toBe(2);
  });
});

describe('where keys apply', () => {
  it('unauthenticated POSTs (login) ignore the header', async () => {
    const m = await gw.merchant();
    const login = () =>
      gw.call('POST', '/auth/login', {
        headers: { 'x-idempotency-key': 'x'.repeat(300) },
        body: { email: m.email, password: m.password },
      });
    const first = await login();
    const second = await login();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('only POSTs use keys: reads and changes ignore the header', async () => {
    const m = await gw.merchant();
    const { body: created } = await post(m, undefined);
    const read = await gw.call('GET', `/customers/${created.id}`, {
      apiKey: m.apiKey,
      headers: { 'x-idempotency-key': 'x'.repeat(300) },
    });
    expect(read.status).toBe(200);
    const patch = (name: string) =>
      gw.call('PATCH', `/customers/${created.id}`, {
        apiKey: m.apiKey,
        headers: { 'x-idempotency-key': 'p' },
        body: { name },
      });
    expect((await patch('One')).body.name).toBe('One');
    expect((await patch('Two')).body.name).toBe('Two');
  });
});
