import { isMainThread, parentPort, Worker } from 'node:worker_threads';

/**
 * `node dist/bench/thread-crossing.js`
 * What moving the embedded store (PGlite) into a worker thread would add per statement
 * (docs/performance.md, "Node 24 against Node 20, and where the embedded store's time goes"): the
 * round trip of a statement to a worker thread and of its answer, one payment row as the hot
 * statements return it, by postMessage. One at a time, and 32 in flight as under the bench's load;
 * wall time and the process's CPU (both threads) per round trip.
 */
const ROUND_TRIPS = 20_000;
const WARM_UP = 5_000;
const IN_FLIGHT = 32;

/** A payment row as the begin and settle statements return it: 27 columns, dates and JSON objects included. */
const paymentRow = () => ({
  id: 123456,
  merchant_id: 42,
  livemode: false,
  payment_request_id: 987654,
  status: 'succeeded',
  method: 'card',
  processor: 'acme',
  processor_payment_id: 'acme_pay_1234567890abcdef',
  amount: 1050,
  currency: 'EUR',
  amount_captured: 1050,
  amount_refunded: 0,
  card_id: 55555,
  capture_delay_hours: 0,
  capture_at: null,
  decline_code: null,
  decline_reason: null,
  failure_code: null,
  challenge_url: null,
  upi_intent_url: null,
  failure_details: null,
  three_ds: null,
  payer: { name: 'Jane Doe', email: 'jane@example.com', phoneNumber: '4915112345678', country: 'DE', city: 'Berlin' },
  options: { is3ds: false, notifyUrl: null, successUrl: null, ipAddress: '127.0.0.1', browserInfo: null },
  created_at: new Date(),
  updated_at: new Date(),
  group_index: 0,
});

interface Statement {
  id: number;
  sql: string;
  parameters: unknown[];
}

if (!isMainThread) {
  parentPort!.on('message', (statement: Statement) =>
    parentPort!.postMessage({ id: statement.id, rows: [paymentRow()], affected: 1 }),
  );
} else {
  const worker = new Worker(new URL(import.meta.url));
  const waiting = new Map<number, () => void>();
  let next = 0;
  worker.on('message', (answer: { id: number }) => {
    waiting.get(answer.id)!();
    waiting.delete(answer.id);
  });
  const sql = 'with moves as (select * from unnest($1::int[], $2::bigint[], $3::timestamptz[])) select 1 '.repeat(20);
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, sql, parameters: [[0], [1], [new Date()], 'x'.repeat(200)] } satisfies Statement);
    });
  const measure = async (lanes: number) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let i = 0; i < ROUND_TRIPS / lanes; i++) await roundTrip();
      }),
    );
    const used = process.cpuUsage(cpu);
    const wallUs = ((performance.now() - started) * 1000) / ROUND_TRIPS;
    const cpuUs = (used.user + used.system) / ROUND_TRIPS;
    console.log(`${lanes} in flight: ${wallUs.toFixed(1)} µs per round trip, ${cpuUs.toFixed(1)} µs of CPU`);
  };
  for (let i = 0; i < WARM_UP; i++) await roundTrip();
  console.log(`Node ${process.version}, ${ROUND_TRIPS} round trips each`);
  await measure(1);
  await measure(IN_FLIGHT);
  await worker.terminate();
}
