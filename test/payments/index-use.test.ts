import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  claimUnfinishedRefunds,
  findUnanswered,
  listPayments,
  lockPaymentForCallback,
} from '../../src/modules/payments/repository.js';
import { createMerchant } from '../../src/modules/merchants/index.js';
import { listPaymentRequestsWithLastPayment } from '../../src/modules/payment-requests/repository.js';
import { claimDueDeliveries } from '../../src/modules/notifications/repository.js';
import { runTransaction } from '../../src/storage/after-commit.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { pendingDelivery } from '../notifications/deliveries.js';

// The background sweeps and the callback lookup run every few seconds on every instance, whatever
// the table's size: each must find its rows through its index, never by reading all payments. The
// indexes are partial or shared to keep writes per payment down (migration 0019), which only works
// when PostgreSQL can prove a query matches them. Sequential scans are switched off here, so a query
// the index cannot serve shows up as some other plan.
let storage: Storage;
beforeAll(async () => {
  storage = await openStorage({ databaseUrl: await freshDatabaseUrl() });
});
afterAll(async () => storage?.close());

/** The plan PostgreSQL makes for the statement `run` sends, with sequential scans off. */
async function planOf(run: (db: Storage['db']) => Promise<unknown>): Promise<string> {
  let statement: RootOperationNode | undefined;
  const capture: KyselyPlugin = {
    // The statement's own node comes last (its sub-selects are transformed as they are built).
    transformQuery: ({ node }) => (statement = node),
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

it('checks each delivery the claim would take for an earlier one of its payment through the order index, one probe each', async () => {
  // Pending deliveries of 200 payments to two receivers: on empty tables every plan costs the same.
  const { merchantId } = await createMerchant(storage, {
    email: 'order-key@example.com',
    password: 'order-key-password-1',
    name: 'Order key',
  });
  for (let i = 0; i < 200; i++)
    await pendingDelivery(storage.db, {
      merchantId,
      url: `https://r${i % 2}.example/hook`,
      orderKey: `p${i}`,
      due: new Date(),
    });
  const places = { free: new Map<string, number>(), otherwise: 4 };
  const plan = await planOf((db) => claimDueDeliveries(db, new Date(), 60, 50, places));
  expect(plan).toMatch(/Index Scan using webhook_deliveries_order on webhook_deliveries e/);
});

it("finds a payer's payments by e-mail through their own index, newest first, not by reading every payment", async () => {
  const plan = await planOf((db) =>
    listPayments(db, { merchantId: 1, livemode: false }, { payerEmail: 'Ada@Example.com' }, 21),
  );
  expect(plan).toMatch(/Index Scan using payments_payer_email/);
  expect(plan).not.toMatch(/Sort/);
});

it("lists payment requests with each one's last payment: the page first, then one index probe per request", async () => {
  const plan = await planOf((db) =>
    listPaymentRequestsWithLastPayment(db, { merchantId: 1, livemode: false }, {}, 21, new Date()),
  );
  // The page is cut below the joins, so the walk of the requests stops at the page size; then, per request,
  // its newest payment (one row of payments_request) and that payment's card.
  expect(plan).toMatch(/^Nested Loop Left Join/);
  expect(plan).toMatch(
    /-> {2}Limit[^\n]*\n\s+-> {2}Index Scan (Backward )?using payment_requests_\w+ on payment_requests/,
  );
  expect(plan).toMatch(/-> {2}Limit[^\n]*\n\s+-> {2}Index Scan using payments_request on payments/);
  expect(plan).toMatch(
    /Index Cond: \(\(merchant_id = payment_requests\.merchant_id\) AND \(payment_request_id = payment_requests\.id\)\)/,
  );
  expect(plan).toMatch(/Index Scan using cards_pkey on cards/);
  expect(plan).not.toMatch(/Sort|Hash/);
});
