import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { freshPostgresDatabaseUrl } from '../helpers/database.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, card, createRequest } from '../payments/fixtures.js';

// Two gateway instances on one PostgreSQL database, with one clock and one processor network (the
// first instance's built-in sandbox, which the second reaches as an external one): the durable
// follow-ups — a delayed capture, a reconciliation — run once, whichever instance runs its jobs.
// Needs a real PostgreSQL server on both passes: scripts/test.sh exports TEST_POSTGRES_SERVER.
const clock = new ManualClock(new Date('2026-03-01T12:00:00Z'));
let a: TestGateway;
let b: TestGateway;
let m: TestMerchant;

beforeAll(async () => {
  const env = { DATABASE_URL: await freshPostgresDatabaseUrl(), PROCESSOR_TIMEOUT_MS: '300' };
  a = await startTestGateway({ env, clock });
  b = await startTestGateway({ env: { ...env, SANDBOX_URL: a.gateway.sandbox!.url }, clock });
  m = await a.merchant();
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Both instances run their due jobs and sweeps at the same moment, as two live instances would. */
const runBoth = () => Promise.all([a.runJobs(), b.runJobs()]);

const eventsOf = async (paymentId: number) =>
  (
    await a.db
      .selectFrom('outbox_events')
      .select('type')
      .where('object_id', '=', paymentId)
      .where('type', 'like', 'payment.%')
      .orderBy('id')
      .execute()
  ).map((row) => row.type);

it('a delayed capture is captured once', async () => {
  const id = await createRequest(a, m);
  const paid = await a.call('POST', `/payments/creditCard/acme/${id}`, {
    apiKey: m.apiKey,
    body: { ...card(CARDS.visa), captureDelayHours: 1 },
  });
  expect(paid.body.status, paid.text).toBe('authorized');
  clock.advance(3601);
  for (let i = 0; i < 3; i++) await runBoth();

  const payment = (await b.call('GET', `/payments/${paid.body.paymentId}`, { apiKey: m.apiKey })).body;
  expect(payment).toMatchObject({ status: 'succeeded', amountCaptured: 10.5 });
  expect(await eventsOf(paid.body.paymentId)).toEqual(['payment.authorized', 'payment.succeeded']);
  const jobs = await a.db.selectFrom('jobs').select(['attempts', 'last_error', 'completed_at']).execute();
  expect(jobs.filter((job) => job.completed_at !== null)).toHaveLength(jobs.length);
  for (const job of jobs) expect(job, JSON.stringify(job)).toMatchObject({ attempts: 1, last_error: null });
});

it('a payment the processor did not answer in time is reconciled once', async () => {
  const id = await createRequest(a, m);
  const res = await a.call('POST', `/payments/creditCard/acme/${id}`, {
    apiKey: m.apiKey,
    body: card(CARDS.visa),
    headers: { 'X-Sandbox-Hang-Ms': '1500' },
  });
  expect(res.body.status, res.text).toBe('pending');
  // Let the sandbox finish the hung authorization, so the status query finds it approved.
  await new Promise((resolve) => setTimeout(resolve, 1600));
  clock.advance(61);
  for (let i = 0; i < 3; i++) await runBoth();

  expect((await b.call('GET', `/payments/${res.body.paymentId}`, { apiKey: m.apiKey })).body.status).toBe('succeeded');
  expect(await eventsOf(res.body.paymentId)).toEqual(['payment.succeeded']);
});
