import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  claimUnfinishedRefunds,
  findUnanswered,
  lockPaymentForCallback,
} from '../../src/modules/payments/repository.js';
import { runTransaction } from '../../src/storage/after-commit.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';

// The background sweeps and the callback lookup run every few seconds on every instance, whatever
// the table's size: each must find its rows through its index, never by reading all payments. The
// indexes are partial or shared to keep writes per payment down (migration 0019), which only works
// when PostgreSQL can prove a query matches them. Sequential scans are switched off here, so a query
// the index cannot serve shows up as some other plan.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ databaseUrl: await freshDatabaseUrl(), dataDir: 'memory://' });
});
afterAll(async () => storage?.close());

/** The plan PostgreSQL makes for the statement `run` sends, with sequential scans off. */
async function planOf(run: (db: Storage['db']) => Promise<unknown>): Promise<string> {
  let statement: RootOperationNode | undefined;
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => (statement ??= node),
    transformResult: async ({ result }) => result,
  };
  return runTransaction(storage.db, async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await run(trx.withPlugin(capture));
    const compiled = trx.getExecutor().compileQuery(statement!, { queryId: 'plan' });
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({
      ...compiled,
      sql: `explain ${compiled.sql}`,
    });
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

it('finds unanswered 3-D Secure challenges and UPI requests through the index of payments awaiting the payer', async () => {
  const cutoff = new Date();
  const challenges = await planOf((db) =>
    findUnanswered(db, { methods: ['card', 'token', 'wallet'], statuses: ['requires_action'], cutoff, limit: 50 }),
  );
  const upi = await planOf((db) =>
    findUnanswered(db, { methods: ['upi'], statuses: ['pending', 'requires_action'], cutoff, limit: 50 }),
  );
  expect(challenges).toMatch(/Index Scan using payments_awaiting_payer/);
  expect(upi).toMatch(/Index Scan using payments_awaiting_payer/);
});

it("finds a callback's payment by the processor's transaction id alone through the unique transaction index", async () => {
  const plan = await planOf((db) => lockPaymentForCallback(db, undefined, 'txn_123'));
  expect(plan).toMatch(/Index Scan using payments_processor_id/);
});

it('finds the refunds the processor never answered through their own partial index', async () => {
  const now = new Date();
  const plan = await planOf((db) => claimUnfinishedRefunds(db, now, new Date(now.getTime() - 60_000), 50));
  expect(plan).toMatch(/Index Scan using refunds_unfinished/);
});
