import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dedupeKey } from '../../src/jobs/catalog.js';
import { checkCard, vaultFields } from '../../src/modules/cards/index.js';
import { randomUUID } from 'node:crypto';
import { findPayment, insertAttempt, type NewAttempt, type PaymentRow } from '../../src/modules/payments/repository.js';
import { movePayment } from '../../src/modules/payments/move-payment.js';
import { enableGroupCommit, groupStats } from '../../src/storage/group-commit.js';
import type { PaymentStatus } from '../../src/modules/payments/index.js';
import type { PaymentPatch } from '../../src/modules/state-machine.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest } from './fixtures.js';

// Group commit (DATABASE_GROUP_COMMIT=true, src/storage/group-commit.ts): settles of one shape that
// arrive while one of theirs is on the way go to the store as one multi-row statement. Each payment
// must end exactly as it would have alone: its status, its request's, its card's usability, one
// outbox event, a capture job when authorized; a stale move must still get nothing. On both stores.
let gw: TestGateway;
let m: TestMerchant;

beforeAll(async () => {
  gw = await startTestGateway({ env: { DATABASE_GROUP_COMMIT: 'true' } });
  m = await gw.merchant();
});
afterAll(async () => {
  await gw?.close();
});

const scope = () => ({ merchantId: m.merchantId, livemode: false });

/** An attempt to pay `requestId` with a new card, as a submission makes it. */
function attempt(requestId: number, extra: Partial<NewAttempt> = {}): NewAttempt {
  const { vault } = gw.gateway.app.ctx;
  const checked = checkCard(
    { number: CARDS.visa, expiration: '12/30', cvv: '123', holder: 'Jane Doe' },
    gw.clock.now(),
  );
  return {
    merchantId: m.merchantId,
    paymentRequestId: requestId,
    card: { vault: { token_hash: `test-${randomUUID()}`, ...vaultFields(vault, checked) } },
    livemode: false,
    processor: 'acme',
    connectionId: null,
    method: 'card',
    captureDelayHours: 0,
    payer: { name: `payer of ${requestId}`, email: 'payer@example.com' },
    options: {
      referenceId: null,
      notifyUrl: null,
      successUrl: null,
      failureUrl: null,
      originDomain: null,
      browserInfo: null,
      ipAddress: '127.0.0.1',
      startedFrom: 'api',
    },
    now: gw.clock.now(),
    ...extra,
  };
}

/** A card payment begun and still pending (as when its processor has not answered yet). */
async function pendingPayment(captureDelayHours = 0): Promise<PaymentRow> {
  return (await insertAttempt(gw.db, attempt(await createRequest(gw, m), { captureDelayHours })))!;
}

const succeed = (p: PaymentRow, transactionId = `tx-${p.id}`): [PaymentStatus, PaymentPatch] => [
  'succeeded',
  { processor_payment_id: transactionId, amount_captured: p.amount },
];
const decline = (p: PaymentRow): [PaymentStatus, PaymentPatch] => [
  'failed',
  {
    processor_payment_id: `tx-${p.id}`,
    decline_code: '05',
    decline_reason: 'Do not honor',
    failure_code: 'card_declined',
  },
];
const authorize = (p: PaymentRow): [PaymentStatus, PaymentPatch] => [
  'authorized',
  { processor_payment_id: `tx-${p.id}`, capture_at: new Date(gw.clock.now().getTime() + 3600_000) },
];

type Move = [PaymentRow, [PaymentStatus, PaymentPatch]];
const move = ([payment, [to, patch]]: Move) => movePayment(gw.db, gw.clock.now(), payment, to, patch);
/** Starts every move in the same turn, as concurrent requests would: the first of a shape goes alone, the rest together. */
const moveAll = (moves: Move[]) => Promise.all(moves.map(move));

async function stateOf(paymentId: number) {
  const payment = (await findPayment(gw.db, scope(), paymentId))!;
  const request = await gw.db
    .selectFrom('payment_requests')
    .select(['status', 'amount_paid'])
    .where('id', '=', payment.payment_request_id)
    .executeTakeFirstOrThrow();
  const card = await gw.db
    .selectFrom('cards')
    .select('usable')
    .where('id', '=', payment.card_id!)
    .executeTakeFirstOrThrow();
  const events = await gw.db
    .selectFrom('outbox_events')
    .select(['type', 'payload', 'created_at'])
    .where('object_id', '=', paymentId)
    .execute();
  const queued = await gw.db
    .selectFrom('outbox_queue')
    .select('event_id')
    .where('event_id', 'in', events.length ? await eventIds(paymentId) : [-1])
    .execute();
  const jobs = await gw.db
    .selectFrom('jobs')
    .select(['kind', 'run_at'])
    .where('dedupe_key', '=', dedupeKey('payment.capture', paymentId))
    .execute();
  return { payment, request, card, events, queued: queued.length, jobs };
}

const eventIds = async (paymentId: number) =>
  (await gw.db.selectFrom('outbox_events').select('id').where('object_id', '=', paymentId).execute()).map((e) => e.id);

it('moves each payment of a group exactly as a move alone does: status, request, card, one queued event, capture job', async () => {
  const paid = await Promise.all(Array.from({ length: 5 }, () => pendingPayment()));
  const declined = await Promise.all(Array.from({ length: 4 }, () => pendingPayment()));
  const authorized = await Promise.all(Array.from({ length: 4 }, () => pendingPayment(1)));
  const before = { ...groupStats(gw.db)! };

  const rows = await moveAll([
    ...paid.map((p): Move => [p, succeed(p)]),
    ...declined.map((p): Move => [p, decline(p)]),
    ...authorized.map((p): Move => [p, authorize(p)]),
  ]);

  const after = groupStats(gw.db)!;
  // Of each shape, the first went alone and the rest as one statement: three statements, ten moves.
  expect(after.statements - before.statements).toBe(3);
  expect(after.rows - before.rows).toBe(4 + 3 + 3);

  const expected: Array<[PaymentRow, PaymentStatus, string, boolean]> = [
    ...paid.map((p) => [p, 'succeeded', 'paid', true] as [PaymentRow, PaymentStatus, string, boolean]),
    ...declined.map((p) => [p, 'failed', 'open', false] as [PaymentRow, PaymentStatus, string, boolean]),
    ...authorized.map((p) => [p, 'authorized', 'authorized', true] as [PaymentRow, PaymentStatus, string, boolean]),
  ];
  for (const [index, [payment, status, requestStatus, usable]] of expected.entries()) {
    // The row each call got back is its own payment, moved.
    expect(rows[index]).toMatchObject({ id: payment.id, status, processor_payment_id: `tx-${payment.id}` });
    const state = await stateOf(payment.id);
    expect(state.payment.status).toBe(status);
    expect(state.request.status).toBe(requestStatus);
    expect(state.request.amount_paid).toBe(status === 'succeeded' ? payment.amount : 0);
    expect(state.card.usable).toBe(usable);
    expect(state.events).toHaveLength(1);
    expect(state.events[0]).toMatchObject({ type: `payment.${status}`, payload: { paymentId: payment.id, status } });
    expect(state.queued).toBe(1);
    expect(state.jobs).toHaveLength(status === 'authorized' ? 1 : 0);
  }
  expect(rows[5]).toMatchObject({ decline_code: '05', failure_code: 'card_declined' });
});

it('gives a stale move no row, in a group as alone: two moves of one payment, the first wins, one event', async () => {
  const [a, b, c] = await Promise.all([pendingPayment(), pendingPayment(), pendingPayment()]);
  const before = { ...groupStats(gw.db)! };
  // a goes alone; b and both moves of c wait and go together.
  const rows = await moveAll([
    [a, succeed(a)],
    [b, succeed(b)],
    [c, succeed(c, 'first')],
    [c, succeed(c, 'second')],
  ]);
  expect(groupStats(gw.db)!.statements - before.statements).toBe(1);
  const applied = rows.slice(2).filter((row) => row !== undefined);
  expect(applied).toHaveLength(1);
  const state = await stateOf(c.id);
  expect(state.payment.processor_payment_id).toBe(applied[0].processor_payment_id);
  expect(state.events).toHaveLength(1);

  // A move of a payment that has already moved gets nothing, grouped too.
  const [d, e] = await Promise.all([pendingPayment(), pendingPayment()]);
  const again = await moveAll([
    [d, succeed(d)],
    [e, succeed(e)],
    [a, succeed(a)],
    [c, succeed(c)],
  ]);
  expect(again.slice(2)).toEqual([undefined, undefined]);
  expect((await stateOf(a.id)).events).toHaveLength(1);
});

it('runs each move of a group the store refused on its own: only the offending move fails', async () => {
  const payments = await Promise.all(Array.from({ length: 5 }, () => pendingPayment()));
  const [p0, p1, p2, p3, p4] = payments as [PaymentRow, PaymentRow, PaymentRow, PaymentRow, PaymentRow];
  const before = { ...groupStats(gw.db)! };
  // p3 repeats p2's processor transaction id: the unique index on (processor, transaction id) refuses
  // the group that carries both; alone, p2's move applies and p3's is refused.
  const moves: Move[] = [
    [p0, succeed(p0)],
    [p1, succeed(p1)],
    [p2, succeed(p2, `dup-${p2.id}`)],
    [p3, succeed(p3, `dup-${p2.id}`)],
    [p4, succeed(p4)],
  ];
  const results = await Promise.allSettled(moves.map(move));
  expect(groupStats(gw.db)!.refused - before.refused).toBe(1);
  // p2 and p3 then race alone, as two single moves would: one applies, the other is refused.
  expect([results[0], results[1], results[4]].map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
  const [winner, loser] = results[2].status === 'fulfilled' ? [p2, p3] : [p3, p2];
  expect(results.filter((r) => r.status === 'rejected')).toEqual([
    expect.objectContaining({ reason: expect.objectContaining({ code: '23505' }) }),
  ]);
  for (const payment of [p0, p1, winner, p4]) {
    const state = await stateOf(payment.id);
    expect(state.payment.status).toBe('succeeded');
    expect(state.events).toHaveLength(1);
  }
  const refused = await stateOf(loser.id);
  expect(refused.payment.status).toBe('pending');
  expect(refused.request.status).toBe('processing');
  expect(refused.events).toHaveLength(0);
});

it('takes concurrent card payments through the API with every outcome, each answered and stored as alone', async () => {
  const cards = [CARDS.visa, CARDS.doNotHonor, CARDS.mastercard, CARDS.insufficientFunds];
  const submissions = await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      const requestId = await createRequest(gw, m);
      return { requestId, number: cards[i % cards.length] };
    }),
  );
  const answers = await Promise.all(
    submissions.map(({ requestId, number }) =>
      gw.call('POST', `/payments/creditCard/acme/${requestId}`, { apiKey: m.apiKey, body: card(number) }),
    ),
  );
  for (const [i, res] of answers.entries()) {
    const approved = i % 2 === 0;
    expect(res.status, res.text).toBe(approved ? 200 : 402);
    const state = await stateOf(res.body.paymentId);
    expect(state.payment.payment_request_id).toBe(submissions[i].requestId);
    expect(state.payment.status).toBe(approved ? 'succeeded' : 'failed');
    expect(state.request.status).toBe(approved ? 'paid' : 'open');
    expect(state.events.map((e) => e.type)).toEqual([approved ? 'payment.succeeded' : 'payment.failed']);
  }
});

it('begins each attempt of a group as alone: its request, its own new card, its recovery point; one attempt per request', async () => {
  const requests = await Promise.all(Array.from({ length: 6 }, () => createRequest(gw, m)));
  const keys = requests.map((id) => `key-${id}`);
  await gw.db
    .insertInto('idempotency_keys')
    .values(
      keys.map((key) => ({
        merchant_id: m.merchantId,
        key,
        fingerprint: 'f',
        request_method: 'POST',
        request_path: '/payments',
        claim_token: `claim-${key}`,
        claimed_at: gw.clock.now(),
        expires_at: new Date(gw.clock.now().getTime() + 3600_000),
      })),
    )
    .execute();
  const attempts = requests.map((id, i) =>
    attempt(id, {
      expected: { minor: 1050, currency: 'EUR' },
      recoveryPoint: { key: keys[i], token: `claim-${keys[i]}`, sealedCardToken: `sealed-${i}` },
    }),
  );
  // A second attempt on the last request, in the same group as the first; and one whose amount does not match.
  const twin = { ...attempts[5], card: attempt(requests[5]).card };
  const wrongAmount = attempt(await createRequest(gw, m), {
    expected: { minor: 999, currency: 'EUR' },
    recoveryPoint: { key: 'none', token: 'none', sealedCardToken: null },
  });
  const before = { ...groupStats(gw.db)! };
  const begun = await Promise.all([...attempts, twin, wrongAmount].map((a) => insertAttempt(gw.db, a)));
  expect(groupStats(gw.db)!.statements - before.statements).toBe(1);
  expect(groupStats(gw.db)!.rows - before.rows).toBe(7);

  for (const [i, requestId] of requests.slice(0, 5).entries()) {
    const payment = begun[i]!;
    expect(payment).toMatchObject({
      payment_request_id: requestId,
      status: 'pending',
      amount: 1050,
      payer: attempts[i].payer,
    });
    const card = await gw.db
      .selectFrom('cards')
      .select('token_hash')
      .where('id', '=', payment.card_id!)
      .executeTakeFirstOrThrow();
    expect(card.token_hash).toBe((attempts[i].card as { vault: { token_hash: string } }).vault.token_hash);
    const claim = await gw.db
      .selectFrom('idempotency_keys')
      .select(['recovery_payment_id', 'recovery_secret'])
      .where('key', '=', keys[i])
      .executeTakeFirstOrThrow();
    expect(claim).toEqual({ recovery_payment_id: payment.id, recovery_secret: `sealed-${i}` });
    const request = await gw.db
      .selectFrom('payment_requests')
      .select('status')
      .where('id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(request.status).toBe('processing');
  }
  // Of the two attempts on one request, one began; the other got nothing and left no card behind.
  const pair = [begun[5], begun[6]];
  expect(pair.filter((p) => p !== undefined)).toHaveLength(1);
  const payments = await gw.db
    .selectFrom('payments')
    .select('card_id')
    .where('payment_request_id', '=', requests[5])
    .execute();
  expect(payments).toHaveLength(1);
  const twinHashes = [attempts[5], twin].map((a) => (a.card as { vault: { token_hash: string } }).vault.token_hash);
  const cards = await gw.db.selectFrom('cards').select('id').where('token_hash', 'in', twinHashes).execute();
  expect(cards.map((c) => c.id)).toEqual([payments[0].card_id]);
  // The request whose amount did not match is untouched.
  expect(begun[7]).toBeUndefined();
  const untouched = await gw.db
    .selectFrom('payment_requests')
    .select('status')
    .where('id', '=', wrongAmount.paymentRequestId)
    .executeTakeFirstOrThrow();
  expect(untouched.status).toBe('open');
});

/** `times` copies of one row of `table` (new ids), with some columns set to SQL expressions. */
async function copyRows(table: string, id: number, times: number, set: Record<string, string> = {}) {
  const { rows } = await sql<{ name: string }>`select column_name as name from information_schema.columns
    where table_name = ${table} and column_name <> 'id'`.execute(gw.db);
  const columns = rows.map((row) => `"${row.name}"`).join(', ');
  const values = rows.map((row) => set[row.name] ?? `"${row.name}"`).join(', ');
  await sql`insert into ${sql.raw(table)} (${sql.raw(columns)}) select ${sql.raw(values)}
    from ${sql.raw(table)}, generate_series(1, ${sql.lit(times)}) where id = ${id}`.execute(gw.db);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

it('reads the payments and requests of a group by primary key, on tables of 20,000 rows', async () => {
  // A generic plan made on small tables joined a group to them by reading them whole; the grouped
  // statements are planned per execution, with the group's values and the tables' real size.
  const seed = await pendingPayment();
  await copyRows('payment_requests', seed.payment_request_id, 20_000);
  await copyRows('payments', seed.id, 20_000, { status: `'failed'`, processor_payment_id: 'null' });
  // The store's own statements, recorded on their way (a view of the same store that groups too).
  const sent: CompiledQuery[] = [];
  const recording = new Proxy(gw.db, {
    get(target, property) {
      if (property === 'executeQuery')
        return (query: CompiledQuery) => {
          sent.push(query);
          return target.executeQuery(query);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  enableGroupCommit(recording);
  const requests = await Promise.all(Array.from({ length: 12 }, () => createRequest(gw, m)));
  const begun = await Promise.all(requests.map((id) => insertAttempt(recording, attempt(id))));
  const settled = await Promise.all(
    begun.map((payment) => movePayment(recording, gw.clock.now(), payment!, ...succeed(payment!))),
  );
  expect(settled.map((payment) => payment?.status)).toEqual(requests.map(() => 'succeeded'));
  const groupedStatements = sent.filter((query) => query.sql.includes('unnest('));
  expect(groupedStatements).toHaveLength(2); // the begins' group, the settles' group

  const plans = await Promise.all(
    groupedStatements.map(async (query) => {
      const explained = await gw.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      return nodesOf(explained.rows[0]['QUERY PLAN'][0].Plan);
    }),
  );
  for (const nodes of plans) {
    const read = (table: string) =>
      nodes.filter((node) => node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable');
    expect(read('payment_requests').map((node) => node['Index Name'])).toEqual(['payment_requests_pkey']);
    expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'payments')).toEqual(
      [],
    );
  }
  const [, settle] = plans;
  expect(settle.filter((node) => node['Relation Name'] === 'payments' && node['Index Name'])).toEqual([
    expect.objectContaining({ 'Index Name': 'payments_pkey' }),
  ]);
});

it('counts its groups in /metrics: statements, the calls they carried, and the refused', async () => {
  const text = (await gw.call('GET', '/metrics')).text;
  const metric = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  const stats = groupStats(gw.db)!;
  // The tests above grouped at least one statement of each kind, and had one refused.
  expect(stats.statements).toBeGreaterThanOrEqual(5);
  expect(metric('svc_db_group_statements_total')).toBe(stats.statements);
  expect(metric('svc_db_group_rows_total')).toBe(stats.rows);
  expect(metric('svc_db_group_refused_total')).toBe(stats.refused);
  expect(stats.refused).toBeGreaterThanOrEqual(1);
});
