import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectionById, connectionsFor } from '../../src/modules/processor-connections/index.js';
import { useGateway } from '../helpers/gateway.js';
import { session } from '../team/fixtures.js';
import { ADYEN_TEST, adyenBody, SECRETS, sandboxBody, STRIPE_LIVE, STRIPE_TEST, stripeBody } from './fixtures.js';

/**
 * Processor connections over HTTP: each processor kind created, listed, read, changed and removed, the
 * credentials write-only (in no answer, no log line, not in clear in the table), changes audited, and the
 * reads the payment routing and the webhook receivers use.
 */
const gw = useGateway();

const expectNoSecret = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
};

describe('each processor kind', () => {
  it.each([
    ['stripe', stripeBody(), { name: 'Stripe main', slots: ['acme', 'h2h'], priority: 10 }],
    ['adyen', adyenBody(), { name: null, slots: ['globex'], priority: 0 }],
    ['sandbox', sandboxBody(), { name: null, slots: ['acme'], priority: -1 }],
  ])('%s: created, listed, read, changed and removed; no answer holds a credential', async (processor, body, shown) => {
    const m = await gw.merchant();
    const created = await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body });
    expect(created.status, created.text).toBe(201);
    const connection = created.body;
    expect(connection).toEqual({
      connectionId: expect.stringMatching(/^pc_[0-9A-Za-z]{24}$/),
      processor,
      mode: 'test',
      ...shown,
      health: 'ok',
      createdAt: gw.clock.now().toISOString(),
      updatedAt: gw.clock.now().toISOString(),
    });
    expect(connection).not.toHaveProperty('credentials');
    const path = `/processor-connections/${connection.connectionId}`;
    expect(created.headers.get('location')).toBe(path);

    const list = await gw.call('GET', '/processor-connections', { apiKey: m.apiKey });
    expect(list.body).toEqual({ data: [connection] });
    const read = await gw.call('GET', path, { apiKey: m.apiKey });
    expect(read.body).toEqual(connection);

    const patched = await gw.call('PATCH', path, {
      apiKey: m.apiKey,
      body: { name: 'Renamed', slots: ['globex', 'h2h'], priority: 5 },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ ...connection, name: 'Renamed', slots: ['globex', 'h2h'], priority: 5 });

    const removed = await gw.call('DELETE', path, { apiKey: m.apiKey });
    expect(removed.body).toEqual({ connectionId: connection.connectionId, deleted: true });
    expect((await gw.call('GET', path, { apiKey: m.apiKey })).status).toBe(404);
    expect((await gw.call('DELETE', path, { apiKey: m.apiKey })).status).toBe(404);
    expect((await gw.call('GET', '/processor-connections', { apiKey: m.apiKey })).body).toEqual({ data: [] });

    for (const text of [created.text, list.text, read.text, patched.text, removed.text]) expectNoSecret(text);
  });

  it('lists the highest priority first, then the oldest', async () => {
    const m = await gw.merchant();
    const names = [];
    for (const [name, priority] of [
      ['low', -5],
      ['first zero', 0],
      ['high', 7],
      ['second zero', 0],
    ] as const) {
      const res = await gw.call('POST', '/processor-connections', {
        apiKey: m.apiKey,
        body: { ...sandboxBody(), name, priority },
      });
      names.push(res.body.name);
    }
    const list = await gw.call('GET', '/processor-connections', { apiKey: m.apiKey });
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['high', 'first zero', 'second zero', 'low']);
  });

  it('a panel session reads and changes them in the mode it chose', async () => {
    const m = await gw.merchant({ withLiveKey: true });
    const owner = await session(gw, m.email);
    const live = { ...owner, headers: { ...owner.headers, 'x-panel-mode': 'live' } };
    const created = await gw.call('POST', '/processor-connections', { ...live, body: stripeBody(STRIPE_LIVE) });
    expect(created.status, created.text).toBe(201);
    expect(created.body.mode).toBe('live');
    expect((await gw.call('GET', '/processor-connections', { apiKey: m.liveKey })).body.data).toHaveLength(1);
    expect((await gw.call('GET', '/processor-connections', { ...owner })).body.data).toEqual([]);
  });
});

describe('credentials', () => {
  it('are stored encrypted under the vault key, and PATCH replaces them after the same checks', async () => {
    const m = await gw.merchant();
    const { body: connection } = await gw.call('POST', '/processor-connections', {
      apiKey: m.apiKey,
      body: stripeBody(),
    });
    const row = await gw.db
      .selectFrom('processor_connections')
      .selectAll()
      .where('public_id', '=', connection.connectionId)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expectNoSecret(stored);
    expect(stored).not.toContain('sk_test_');
    expect(row.credentials_key_id).toMatch(/\S/);

    const replaced = { secretKey: 'sk_test_51ReplacedSecretKey', webhookSecret: 'whsec_ReplacedSigningSecret' };
    const patched = await gw.call('PATCH', `/processor-connections/${connection.connectionId}`, {
      apiKey: m.apiKey,
      body: { credentials: replaced },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.text).not.toContain(replaced.secretKey);
    const ctx = gw.gateway.app.ctx;
    expect((await connectionById(ctx, connection.connectionId))?.credentials).toEqual(replaced);

    // Another processor's credentials do not fit this connection: nothing changes.
    const wrong = await gw.call('PATCH', `/processor-connections/${connection.connectionId}`, {
      apiKey: m.apiKey,
      body: { credentials: ADYEN_TEST, priority: 99 },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatchObject({ field: 'credentials' });
    expect(wrong.text).not.toContain(ADYEN_TEST.apiKey);
    const after = await connectionById(ctx, connection.connectionId);
    expect(after).toMatchObject({ priority: 10, credentials: replaced });
  });

  it('never reach the log, even in refused requests', async () => {
    const m = await gw.merchant();
    await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body: stripeBody() });
    await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body: adyenBody() });
    await gw.call('POST', '/processor-connections', { apiKey: m.apiKey, body: stripeBody(STRIPE_LIVE) });
    await gw.call('POST', '/processor-connections', {
      apiKey: m.apiKey,
      body: { ...stripeBody(), credentials: { secretKey: 5, webhookSecret: STRIPE_TEST.webhookSecret } },
    });
    expectNoSecret(gw.logs());
  });
});

describe('the reads of the routing and the webhook receivers', () => {
  it('connectionsFor: the slot’s connections of the merchant and mode, highest priority first, decrypted', async () => {
    const m = await gw.merchant();
    const other = await gw.merchant();
    const make = async (apiKey: string, body: object) =>
      (await gw.call('POST', '/processor-connections', { apiKey, body })).body.connectionId as string;
    const stripe = await make(m.apiKey, stripeBody()); // acme, h2h, priority 10
    const sandbox = await make(m.apiKey, sandboxBody()); // acme, priority -1
    const adyen = await make(m.apiKey, { ...adyenBody(), slots: ['acme', 'globex'], priority: 20 });
    await make(other.apiKey, stripeBody());

    const ctx = gw.gateway.app.ctx;
    const acme = await connectionsFor(ctx, { merchantId: m.merchantId, mode: 'test', slot: 'acme' });
    expect(acme.map((c) => c.connectionId)).toEqual([adyen, stripe, sandbox]);
    expect(acme[0]).toMatchObject({
      processor: 'adyen',
      merchantId: m.merchantId,
      mode: 'test',
      credentials: ADYEN_TEST,
    });
    expect(acme[1]).toMatchObject({ processor: 'stripe', credentials: STRIPE_TEST, health: 'ok' });
    expect(acme[2]).toMatchObject({ processor: 'sandbox', credentials: {} });
    const h2h = await connectionsFor(ctx, { merchantId: m.merchantId, mode: 'test', slot: 'h2h' });
    expect(h2h.map((c) => c.connectionId)).toEqual([stripe]);
    expect(await connectionsFor(ctx, { merchantId: m.merchantId, mode: 'live', slot: 'acme' })).toEqual([]);

    expect(await connectionById(ctx, stripe)).toMatchObject({ merchantId: m.merchantId, credentials: STRIPE_TEST });
    expect(await connectionById(ctx, 'pc_nothere')).toBeUndefined();
  });
});

describe('audit', () => {
  it('records creation, change and removal, naming the connection and never its credentials', async () => {
    const m = await gw.merchant();
    const { body: connection } = await gw.call('POST', '/processor-connections', {
      apiKey: m.apiKey,
      body: stripeBody(),
    });
    const path = `/processor-connections/${connection.connectionId}`;
    await gw.call('PATCH', path, { apiKey: m.apiKey, body: { priority: 3 } });
    await gw.call('DELETE', path, { apiKey: m.apiKey });
    const owner = await session(gw, m.email);
    const audit = await gw.call('GET', '/audit-log', { ...owner });
    expect(audit.body.data).toMatchObject([
      { action: 'processor_connection.deleted', target: path, mode: 'test', by: m.email },
      { action: 'processor_connection.updated', target: path, mode: 'test', by: m.email },
      { action: 'processor_connection.created', target: path, mode: 'test', by: m.email },
    ]);
    const rows = await sql`select * from audit_log where merchant_id = ${m.merchantId}`.execute(gw.db);
    expectNoSecret(JSON.stringify(rows.rows));
  });
});
