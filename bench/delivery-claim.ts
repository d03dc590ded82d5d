import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { claimDueDeliveries } from '../src/modules/notifications/repository.js';
import { ENDPOINT_PLACES } from '../src/modules/notifications/endpoint-places.js';
import { SENDS_IN_FLIGHT } from '../src/modules/notifications/deliver-due.js';
import { openStorage } from '../src/storage/db.js';
import { startEmbeddedServer } from '../src/storage/embedded-server.js';
import { percentile } from './percentile.js';
import { testClusterUrl, withDatabase } from './postgres.js';

/**
 * `npm run bench:claim [-- --store embedded|postgres|both --database-url postgres://… --claims 20]`
 * The delivery sweep's claim (`claimDueDeliveries`, the statement each beat of the job loop runs) against
 * the backlogs a receiver that never answers leaves: its endpoint full (its sends in flight), with 0 to
 * 20,000 due deliveries waiting for it and 20 other endpoints with 2 due each, added after them; then
 * 1,000 and 5,000 more endpoints whose deliveries are backing off (due in an hour). Times `--claims` claims
 * of each (the claimed rows made due again between them) and prints the median and p95. `postgres`: a
 * throwaway database on the test cluster of scripts/pg-cluster.sh, or on --database-url's server;
 * `embedded`: the embedded server with its own settings on a throwaway cluster (`DATA_DIR=memory://`).
 * docs/performance.md ("The delivery claim") records a run.
 */
const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'both' },
    'database-url': { type: 'string' },
    claims: { type: 'string', default: '20' },
  },
});
const CLAIMS = Number(args.claims);
if (!['embedded', 'postgres', 'both'].includes(args.store))
  throw new Error(`--store: embedded, postgres or both, not "${args.store}"`);
const DEAD = 'http://dead.example:81';

async function measure(store: string, databaseUrl: string): Promise<string[]> {
  const storage = await openStorage({ databaseUrl });
  const db = storage.db;
  const rows: string[] = [];
  try {
    const now = new Date();
    const [event] = (
      await sql<{ id: number }>`insert into outbox_events (merchant_id, livemode, type, object_id, payload, created_at)
        values (1, false, 'payment.succeeded', 1, '{}', ${now}) returning id`.execute(db)
    ).rows;
    // `count` deliveries, each of its own payment, due at `due`, spread over `endpoints` hosts named by `host`.
    let payments = 0;
    const add = async (count: number, host: string, due: Date, endpoints = 1) => {
      await sql`insert into webhook_deliveries (event_id, merchant_id, livemode, url, endpoint, order_key, status,
          next_attempt_at, created_at)
        select ${event.id}, 1, false, origin || '/hook', origin, 'payment-' || (${payments}::int + n), 'pending', ${due}, ${now}
        from generate_series(1, ${count}::int) n,
          lateral (select 'http://' || replace(${host}, '{n}', (n % ${endpoints}::int)::text) as origin) o`.execute(db);
      payments += count;
    };
    const time = async (label: string) => {
      await sql`analyze webhook_deliveries`.execute(db);
      const ms: number[] = [];
      let claimed = 0;
      for (let i = 0; i < CLAIMS; i++) {
        const started = performance.now();
        const got = await claimDueDeliveries(db, now, 60, SENDS_IN_FLIGHT, {
          free: new Map([[DEAD, 0]]),
          otherwise: ENDPOINT_PLACES.START,
        });
        ms.push(performance.now() - started);
        claimed = got.length;
        if (got.some((d) => d.endpoint === DEAD)) throw new Error('a full endpoint had a delivery claimed');
        await sql`update webhook_deliveries set locked_until = null, attempts = 0 where locked_until is not null`.execute(
          db,
        );
      }
      ms.sort((a, b) => a - b);
      rows.push(`| ${label} | ${claimed} | ${percentile(ms, 0.5).toFixed(1)} | ${percentile(ms, 0.95).toFixed(1)} |`);
    };

    let backlog = 0;
    for (const waiting of [0, 1_000, 5_000, 20_000]) {
      await add(waiting - backlog, 'dead.example:81', now);
      backlog = waiting;
      await sql`delete from webhook_deliveries where endpoint <> ${DEAD}`.execute(db);
      await add(40, 'receiver{n}.example', now, 20);
      await time(`full endpoint with ${waiting.toLocaleString('en')} due waiting`);
    }
    const inAnHour = new Date(now.getTime() + 3_600_000);
    for (const endpoints of [1_000, 5_000]) {
      await add(endpoints * 3, 'failing{n}.example', inAnHour, endpoints);
      await time(`the same, and ${endpoints.toLocaleString('en')} endpoints backing off`);
      await sql`delete from webhook_deliveries where next_attempt_at = ${inAnHour}`.execute(db);
    }
    const [{ version }] = (await sql<{ version: string }>`select version()`.execute(db)).rows;
    rows.unshift(`${store} (${version.split(' on ')[0]})`);
  } finally {
    await storage.close();
  }
  return rows;
}

const report: string[][] = [];
if (args.store !== 'embedded') {
  const server = args['database-url'] ?? testClusterUrl();
  report.push(await withDatabase(server, 'bench_claim', (url) => measure('PostgreSQL', url)));
}
if (args.store !== 'postgres') {
  const embedded = await startEmbeddedServer('memory://', { role: 'tool' });
  try {
    report.push(await measure('Embedded PostgreSQL', embedded.url));
  } finally {
    await embedded.stop();
  }
}
console.log(`${CLAIMS} claims each, ms:`);
for (const [title, ...rows] of report) {
  console.log(`\n${title}\n| Backlog | claimed | median | p95 |\n|---|---:|---:|---:|\n${rows.join('\n')}`);
}
