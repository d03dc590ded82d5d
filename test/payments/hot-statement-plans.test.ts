import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { insertAttempt, transition } from '../../src/modules/payments/repository.js';
import { groupStats } from '../../src/storage/group-commit.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest } from './fixtures.js';

// The two statements of every payment are prepared statements on PostgreSQL, planned once per
// connection. A plan made while the tables were nearly empty once looked the payment up through the
// merchant's reporting index instead of its primary key, so each settle read all the merchant's
// payments. The gateway here plans generically from its first statement on an empty database (the
// worst case, and what PostgreSQL chose on its own in the bench), then pays; the payments table must
// be read through its primary key only.
// Needs a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
// The grouped statements of group commit (DATABASE_GROUP_COMMIT=true) join the payments and their
// requests to the rows of a group; they are planned on every execution, and must find those rows by
// primary key once the tables hold more than a few pages.
let gw: TestGateway;
let m: TestMerchant;
let stats: pg.Client;
let grouped: TestGateway;
let groupedStats: pg.Client;

/** `times` copies of one row of `table` (new ids), with some columns set to SQL expressions. */
async function copyRows(table: string, id: number, times: number, set: Record<string, string> = {}) {
  const { rows } = await groupedStats.query<{ name: string }>(
    `select column_name as name from information_schema.columns where table_name = $1 and column_name <> 'id'`,
    [table],
  );
  const columns = rows.map((row) => `"${row.name}"`).join(', ');
  const values = rows.map((row) => set[row.name] ?? `"${row.name}"`).join(', ');
  await groupedStats.query(
    `insert into ${table} (${columns}) select ${values} from ${table}, generate_series(1, ${times}) where id = $1`,
    [id],
  );
}

/** A gateway on a fresh, empty database whose every prepared statement is planned generically. */
async function genericallyPlanned(env: Record<string, string> = {}): Promise<[TestGateway, pg.Client]> {
  const url = new URL(await freshPostgresDatabaseUrl());
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  url.searchParams.set('options', '-c plan_cache_mode=force_generic_plan');
  const gateway = await startTestGateway({
    env: { DATABASE_URL: url.toString(), DATABASE_PREPARED_STATEMENTS: 'true', ...env },
  });
  return [gateway, client];
}

beforeAll(async () => {
  [gw, stats] = await genericallyPlanned();
  m = await gw.merchant();
  const url = await freshPostgresDatabaseUrl();
  groupedStats = new pg.Client({ connectionString: url });
  await groupedStats.connect();
  grouped = await startTestGateway({ env: { DATABASE_URL: url, DATABASE_GROUP_COMMIT: 'true' } });
});
afterAll(async () => {
  await gw?.close();
  await stats?.end();
  await grouped?.close();
  await groupedStats?.end();
});

/** Index scans of a table by index, once every connection has reported its counts. */
async function indexScans(
  client: pg.Client,
  table: 'payments' | 'payment_requests',
  atLeastByPrimaryKey: number,
): Promise<Record<string, number>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ index: string; scans: string }>(
      `select indexrelname as index, idx_scan as scans from pg_stat_user_indexes where relname = $1`,
      [table],
    );
    const scans = Object.fromEntries(rows.map((row) => [row.index, Number(row.scans)]));
    // Backends report their counts when idle, at most once a second and within ~10 s.
    if (scans[`${table}_pkey`] >= atLeastByPrimaryKey || Date.now() > deadline) return scans;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
const paymentIndexScans = (atLeast: number) => indexScans(stats, 'payments', atLeast);

it('settles payments through the primary key, however empty the tables were when the statements were planned', async () => {
  const before = await paymentIndexScans(0);
  const paid = 40;
  for (let i = 0; i < paid; i++) {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) });
    expect(res.body.status, res.text).toBe('succeeded');
  }

  const after = await paymentIndexScans(before.payments_pkey + paid);
  const used = (index: string) => (after[index] ?? 0) - (before[index] ?? 0);
  expect(used('payments_pkey')).toBeGreaterThanOrEqual(paid);
  expect(used('payments_report')).toBe(0);
  expect(used('payments_list')).toBe(0);
}, 60_000);

it('begins and settles grouped payments through the primary keys of payments and requests', async () => {
  const merchant = await grouped.merchant();
  const count = 30;
  const requests = await Promise.all(Array.from({ length: count }, () => createRequest(grouped, merchant)));
  // 20,000 earlier requests and failed payments of them, copied from one paid through the API.
  const paid = await grouped.call('POST', `/payments/creditCard/acme/${await createRequest(grouped, merchant)}`, {
    apiKey: merchant.apiKey,
    body: card(CARDS.visa),
  });
  await copyRows('payment_requests', paid.body.paymentRequestId, 20_000);
  await copyRows('payments', paid.body.paymentId, 20_000, { status: `'failed'`, processor_payment_id: 'null' });
  const before = {
    payments: await indexScans(groupedStats, 'payments', 0),
    requests: await indexScans(groupedStats, 'payment_requests', 0),
  };
  const counts = { ...groupStats(grouped.db)! };
  const now = grouped.clock.now();
  // All in one turn, as concurrent submissions: the first two of each statement go alone, the rest grouped.
  const begun = await Promise.all(
    requests.map((paymentRequestId) =>
      insertAttempt(grouped.db, {
        merchantId: merchant.merchantId,
        paymentRequestId,
        card: null,
        processor: 'acme',
        method: 'wallet',
        captureDelayHours: 0,
        payer: {},
        options: {},
        now,
      }),
    ),
  );
  const settled = await Promise.all(
    begun.map((payment) =>
      transition(grouped.db, now, payment!, 'succeeded', {
        processor_payment_id: `tx-${payment!.id}`,
        amount_captured: payment!.amount,
      }),
    ),
  );
  expect(settled.map((payment) => payment?.status)).toEqual(requests.map(() => 'succeeded'));
  // Of each statement the first two went alone, the rest in one group.
  expect(groupStats(grouped.db)!.statements - counts.statements).toBe(2);

  const payments = await indexScans(groupedStats, 'payments', before.payments.payments_pkey + count);
  const used = (index: string) => (payments[index] ?? 0) - (before.payments[index] ?? 0);
  expect(used('payments_pkey')).toBeGreaterThanOrEqual(count);
  expect(used('payments_report')).toBe(0);
  expect(used('payments_list')).toBe(0);
  const requestScans = await indexScans(
    groupedStats,
    'payment_requests',
    before.requests.payment_requests_pkey + count,
  );
  const byKey = requestScans.payment_requests_pkey - before.requests.payment_requests_pkey;
  expect(byKey).toBeGreaterThanOrEqual(count * 2); // moved by the begin, and again by the settle
  for (const [index, scans] of Object.entries(requestScans)) {
    if (index !== 'payment_requests_pkey') expect(scans - (before.requests[index] ?? 0), index).toBe(0);
  }
}, 60_000);
