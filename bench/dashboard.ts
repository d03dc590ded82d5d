import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { inTransaction } from '../src/storage/db-context.js';
import { rotateApiKey } from '../src/modules/api-keys/index.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { listPayments } from '../src/modules/payments/repository.js';
import { dailyTotalsQuery } from '../src/modules/reports/repository.js';
import { startGateway } from '../src/server.js';
import { percentile } from './percentile.js';
import { withDatabase } from './postgres.js';

/**
 * `npm run bench:dashboard [-- --database-url postgres://… --payments 1000000 --runs 15]`
 * The dashboard's aggregate endpoint over a million payments on PostgreSQL: generates the payments of
 * one merchant over a year (a fresh throwaway database on the given server, dropped afterwards),
 * then times GET /reports/dashboard through the real gateway over HTTP for 30, 90 and 366 days, the
 * reporting list with a status filter for comparison, and the payment search (payer e-mail, card last 4). Prints the figures (docs/performance.md
 * "Reporting aggregates" records a run).
 */
const { values: args } = parseArgs({
  options: {
    'database-url': {
      type: 'string',
      default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:55432/postgres',
    },
    payments: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '15' },
    explain: { type: 'boolean', default: false },
  },
});
const PAYMENTS = Number(args.payments);
const RUNS = Number(args.runs);
const DAY_MS = 86_400_000;
const TO = new Date('2026-11-01T00:00:00Z');

async function time(url: string, apiKey: string, path: string) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const started = performance.now();
    const res = await fetch(`${url}${path}`, { headers: { 'x-api-key': apiKey } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
    // The first two warm the plan cache and the buffers.
    if (i >= 2) ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { path, p50: percentile(ms, 0.5), p95: percentile(ms, 0.95) };
}

await withDatabase(args['database-url'], 'bench_dashboard', async (databaseUrl) => {
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '1000000',
  });
  const gateway = await startGateway(config, { runJobs: false });
  try {
    const db = gateway.db;
    const ctx = { db, clock: { now: () => new Date() } };
    const merchant = await inTransaction(ctx, (trx) =>
      createMerchant(trx, { email: 'bench@example.com', password: 'bench-password-123', name: 'Bench' }),
    );
    const apiKey = await inTransaction(ctx, (trx) => rotateApiKey(trx, { userId: merchant.userId, mode: 'test' }));
    const started = performance.now();
    // A year of payments, evenly spread: 80 % succeeded, 10 % declined with one of five decline codes, 5 %
    // failed 3-D Secure, the rest authorized or pending; EUR and USD; a card each (random last 4) and one of
    // 50,000 payers' e-mails. Another merchant's tenth on top, so the indexes are shared.
    const merchantOf = sql`case when n % 10 = 0 then ${merchant.merchantId + 1000}::bigint else ${merchant.merchantId}::bigint end`;
    await sql`insert into cards (id, merchant_id, livemode, token_hash, pan_ciphertext, key_id, fingerprint, brand, bin,
        last4, exp_month, exp_year, holder_name, created_at)
      select n, ${merchantOf}, false, 'bench' || n, 'x', 'k1', 'f' || n, 'visa', '424242',
        lpad((floor(random() * 10000))::int::text, 4, '0'), 12, 2030, 'Bench Payer', ${TO}::timestamptz
      from generate_series(1, ${PAYMENTS}::int) n`.execute(db);
    await sql`insert into payments (merchant_id, livemode, payment_request_id, status, method, processor, amount, currency,
        decline_code, decline_reason, failure_code, card_id, payer, options, created_at, updated_at)
      select ${merchantOf}, false, n,
        case when n % 20 < 16 then 'succeeded' when n % 20 < 19 then 'failed' when n % 2 = 0 then 'authorized' else 'pending' end,
        'card', 'acme', 100 + n % 10000, case when n % 3 = 0 then 'USD' else 'EUR' end,
        case when n % 20 between 16 and 17 then (array['05','51','54','57','61'])[1 + n % 5] end,
        case when n % 20 between 16 and 17 then 'Declined' when n % 20 = 18 then '3-D Secure result N' end,
        case when n % 20 between 16 and 17 then 'card_declined' when n % 20 = 18 then 'threeds_failed' end,
        n, jsonb_build_object('name', 'Bench Payer', 'email', 'payer' || (n % 50000) || '@example.com'), '{}'::jsonb, ts, ts
      from generate_series(1, ${PAYMENTS}::int) n,
        lateral (select ${TO}::timestamptz - (n::float8 / ${PAYMENTS}::int * 365 * interval '1 day') as ts) t`.execute(
      db,
    );
    await sql`vacuum analyze payments`.execute(db);
    await sql`vacuum analyze cards`.execute(db);
    console.log(
      `generated ${PAYMENTS.toLocaleString('en')} payments in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const last = (days: number) =>
      `from=${new Date(TO.getTime() - days * DAY_MS).toISOString().slice(0, 10)}&to=${new Date(TO.getTime() - DAY_MS).toISOString().slice(0, 10)}`;
    const results = [
      await time(gateway.url, apiKey, `/reports/dashboard?${last(30)}`),
      await time(gateway.url, apiKey, `/reports/dashboard?${last(90)}`),
      await time(gateway.url, apiKey, `/reports/dashboard?${last(366)}`),
      await time(gateway.url, apiKey, '/payments?status=failed&limit=100'),
      await time(gateway.url, apiKey, '/payments?currency=EUR&amountFrom=50&amountTo=51&limit=20'),
      await time(gateway.url, apiKey, '/payments?payerEmail=Payer4321@example.com'),
      await time(gateway.url, apiKey, '/payments?payerEmail=payer4321@example.com&cardLast4=0042'),
      await time(
        gateway.url,
        apiKey,
        `/payments?cardLast4=0042&createdFrom=${new Date(TO.getTime() - 31 * DAY_MS).toISOString()}&createdTo=${TO.toISOString()}`,
      ),
    ];
    if (args.explain) {
      // The plan of the year's aggregate, the gateway's own statement with its parameters.
      const year = dailyTotalsQuery(
        db,
        { merchantId: merchant.merchantId, livemode: false },
        new Date(TO.getTime() - 366 * DAY_MS),
        TO,
      ).compile();
      const plan = await db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain (analyze, buffers) ${year.sql}`, [...year.parameters]),
      );
      console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      // And the card search over its longest window: the payments list's own statement, captured as sent.
      let statement: RootOperationNode | undefined;
      const capture: KyselyPlugin = {
        transformQuery: ({ node }) => (statement = node),
        transformResult: async ({ result }) => result,
      };
      const scope = { merchantId: merchant.merchantId, livemode: false };
      const window = { cardLast4: '0042', createdFrom: new Date(TO.getTime() - 31 * DAY_MS), createdTo: TO };
      await listPayments(db.withPlugin(capture), scope, window, 21);
      const search = db.getExecutor().compileQuery(statement!, { queryId: 'explain' });
      const searchPlan = await db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain (analyze, buffers) ${search.sql}`, [...search.parameters]),
      );
      console.log(searchPlan.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    const [{ version }] = (await sql<{ version: string }>`select version()`.execute(db)).rows;
    console.log(`${version.split(' on ')[0]}, ${RUNS} timed requests each (after 2 warm-up), sequential, over HTTP:`);
    console.log('| Request | p50 ms | p95 ms |\n|---|---:|---:|');
    for (const r of results) console.log(`| \`GET ${r.path}\` | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`);
  } finally {
    await gateway.close();
  }
});
