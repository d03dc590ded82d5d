import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest } from './fixtures.js';

// The two statements of every payment are prepared statements on PostgreSQL, planned once per
// connection. A plan made while the tables were nearly empty once looked the payment up through the
// merchant's reporting index instead of its primary key, so each settle read all the merchant's
// payments. The gateway here plans generically from its first statement on an empty database (the
// worst case, and what PostgreSQL chose on its own in the bench), then pays; the payments table must
// be read through its primary key only.
// Needs a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
let gw: TestGateway;
let m: TestMerchant;
let stats: pg.Client;

beforeAll(async () => {
  const url = new URL(await freshPostgresDatabaseUrl());
  stats = new pg.Client({ connectionString: url.toString() });
  await stats.connect();
  url.searchParams.set('options', '-c plan_cache_mode=force_generic_plan');
  gw = await startTestGateway({ env: { DATABASE_URL: url.toString(), DATABASE_PREPARED_STATEMENTS: 'true' } });
  m = await gw.merchant();
});
afterAll(async () => {
  await gw?.close();
  await stats?.end();
});

/** Index scans of the payments table by index, once every connection has reported its counts. */
async function paymentIndexScans(atLeastByPrimaryKey: number): Promise<Record<string, number>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await stats.query('select pg_stat_clear_snapshot()');
    const { rows } = await stats.query<{ index: string; scans: string }>(
      `select indexrelname as index, idx_scan as scans from pg_stat_user_indexes where relname = 'payments'`,
    );
    const scans = Object.fromEntries(rows.map((row) => [row.index, Number(row.scans)]));
    // Backends report their counts when idle, at most once a second and within ~10 s.
    if (scans.payments_pkey >= atLeastByPrimaryKey || Date.now() > deadline) return scans;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

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
