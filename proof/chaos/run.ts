import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStorage } from '../../src/storage/db.js';
import { startEmbeddedServer } from '../../src/storage/embedded-server.js';
import { checkAnswers, checkCardData, checkOutcomes, checkStore, type Charge, type Verdict } from './checks.js';
import { runOrder, type ClientOptions, type Order } from './clients.js';
import { checkRotationAfterFailover } from './key-rotation.js';
import {
  formatEpisodes,
  PROCESSOR_FAULTS,
  startProcessorFaults,
  type FaultEpisode,
  type ProcessorFaults,
} from './processor-faults.js';
import { freePort, GatewayLives, startSandboxProcess } from './processes.js';

export type Scenario = 'kill' | 'postgres' | 'hang' | 'failover' | 'rolling' | 'processor-faults';

export interface ChaosOptions {
  scenario: Scenario;
  seed: number;
  orders: number;
  concurrency: number;
  /** Faults to inject (gateway kills, PostgreSQL immediate stops, or processor fault episodes). */
  faults: number;
  /** Scenario "processor-faults": the Stripe requests each episode's fault strikes. */
  requestsPerFault?: number;
  /**
   * A PostgreSQL database for the gateway; without it, the default store: the embedded PostgreSQL server
   * in a fresh DATA_DIR, which a killed gateway leaves running and the next start takes over.
   */
  databaseUrl?: string;
  /** Stops PostgreSQL immediately and starts it again (scenario "postgres"). */
  restartPostgres?: () => Promise<void>;
  /**
   * SIGKILLs the primary of a highly available cluster (scenario "failover", scripts/ha-cluster.sh),
   * resolving once it is gone, and `waitForPrimary` resolves once a write commits again.
   */
  killPrimary?: () => Promise<void>;
  waitForPrimary?: () => Promise<void>;
  /** Resolves once the cluster could fail over again (the killed node back as a standby). */
  waitForStandby?: () => Promise<void>;
  /** Gateway instances on the same database, the clients' calls spread over them in turn (default 1). */
  instances?: number;
  /**
   * Give each payment request a notifyUrl on a receiver of the run's own, and check afterwards that every
   * payment and refund event in the outbox was delivered there (needs `databaseUrl`).
   */
  notifications?: boolean;
  /** A call without a definite answer this long after it started is a violation. */
  deadlineMs: number;
  /** The longest acceptable time from the gateway being back to an interrupted call's definite answer. */
  answerWithinMs: number;
  /** Wait for pending payments to be reconciled before checking (the sweep runs 60 s after the last change). */
  settle: boolean;
  log?: (line: string) => void;
}

export interface ChaosReport extends Verdict {
  scenario: Scenario;
  storage: string;
  orders: number;
  requestsSent: number;
  faultsInjected: number;
  elapsedMs: number;
  /** Scenario "processor-faults": each episode, and where the approved payments went. */
  episodes?: FaultEpisode[];
  paidThrough?: Record<string, number>;
}

const PROCESSOR_TIMEOUT_MS = 1000;

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/**
 * One chaos scenario against real processes: the sandbox network, the gateway (restarted on the same
 * port and store after every kill), and merchant clients retrying with their idempotency keys.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const random = prng(options.seed);
  const secret = randomBytes(24).toString('hex');
  const instances = options.instances ?? 1;
  const gatewayPorts = await Promise.all(Array.from({ length: instances }, () => freePort()));
  const [gatewayPort, sandboxPort] = [gatewayPorts[0], await freePort()];
  const sandbox = await startSandboxProcess({
    port: sandboxPort,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    secret,
  });
  const receiver = options.notifications ? await startReceiver() : undefined;
  const processorFaults: ProcessorFaults | undefined =
    options.scenario === 'processor-faults' ? await startProcessorFaults() : undefined;
  const dataDir = options.databaseUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'svc-chaos-'));
  const store: Record<string, string> = options.databaseUrl
    ? { DATABASE_URL: options.databaseUrl }
    : { DATA_DIR: dataDir! };
  const gatewayEnv = (port: number) => ({
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    SANDBOX_URL: sandbox.url,
    CALLBACK_SIGNING_SECRET: secret,
    PROCESSOR_TIMEOUT_MS: String(PROCESSOR_TIMEOUT_MS),
    RATE_LIMIT_MAX: '10000000',
    LOG_LEVEL: 'info',
    SEED_DEMO: 'true',
    ...store,
    ...processorFaults?.env,
  });
  const gateway = new GatewayLives(gatewayEnv(gatewayPort));
  // The others share the first's database (and its demo merchant's key), as instances behind a load balancer.
  const others = gatewayPorts.slice(1).map((port) => new GatewayLives(gatewayEnv(port)));
  const gateways = [gateway, ...others];
  let turn = 0;
  const verdict: Verdict = { checked: 0, violations: [], answerAfterRestartMs: [] };
  const counters = { sent: 0 };
  let faults = 0;
  /** When each primary was killed (scenario "failover"). */
  const killedAt: number[] = [];
  let paidThrough: Record<string, number> | undefined;
  let ordersRun: Order[] | undefined;
  try {
    await gateway.start();
    for (const other of others) await other.start();
    await processorFaults?.connect({ url: gateway.url, apiKey: () => gateway.apiKey });
    const runId = `${options.seed}-${randomBytes(3).toString('hex')}`;
    const client: ClientOptions = {
      url: () => gateways[turn++ % gateways.length].url,
      apiKey: () => gateway.apiKey,
      runId,
      deadlineMs: options.deadlineMs,
      lastReadyAt: () => gateway.readyAt[gateway.readyAt.length - 1],
      down: () => gateways.every((g) => g.down),
      counters,
      notifyUrl: receiver?.url,
      payHeaders:
        options.scenario === 'hang' ? { 'x-sandbox-hang-ms': String(PROCESSOR_TIMEOUT_MS + 1500) } : undefined,
      hostToHost: options.scenario === 'processor-faults',
    };
    const newOrder = (index: number): Order => ({
      index,
      amount: Math.round(500 + random() * 5000) / 100,
      declined: random() < 0.1,
      refund: random() < 0.3,
    });
    const orders: Order[] = Array.from({ length: options.orders }, (_, index) => newOrder(index));
    ordersRun = orders;

    let next = 0;
    let done = 0;
    // Processor faults: the load goes on past `orders` until the last episode is over (and a little after).
    let extend = options.scenario === 'processor-faults';
    const worker = async () => {
      for (;;) {
        if (next >= orders.length) {
          if (!extend) break;
          orders.push(newOrder(orders.length));
        }
        await runOrder(client, orders[next++]);
        done++;
      }
    };
    const load = Promise.all(Array.from({ length: options.concurrency }, worker));

    // Faults at random moments while the load runs.
    const chaos = (async () => {
      if (options.scenario === 'hang') return;
      if (processorFaults) {
        try {
          for (let i = 0; i < options.faults; i++) {
            // Spread over the load, so that payments go through Stripe before, between and after the episodes.
            const due = Math.floor(((i + 0.5 + random() / 2) * options.orders) / (options.faults + 1));
            while (done < due) await sleep(50);
            const fault = PROCESSOR_FAULTS[i % PROCESSOR_FAULTS.length];
            const e = await processorFaults.episode(fault, options.requestsPerFault ?? 10);
            log(
              `  Stripe ${fault} × ${e.requests} #${i + 1}: circuit open after ${e.openAt ? e.openAt - e.injectedAt : '-'} ms, healthy after ${e.recoveredAt ? e.recoveredAt - e.injectedAt : '-'} ms (${done} orders done)`,
            );
            faults++;
          }
          const after = done + 2 * options.concurrency;
          while (done < after) await sleep(50);
        } finally {
          extend = false;
        }
        return;
      }
      for (let i = 0; i < options.faults && done < orders.length; i++) {
        await sleep(200 + random() * 1300); // a random moment of the load, which runs on between faults
        if (done >= orders.length) break;
        if (options.scenario === 'kill') {
          const killedAt = Date.now();
          await gateway.kill9();
          await sleep(random() * 500);
          await gateway.start();
          log(
            `  kill -9 #${i + 1}: life ${gateway.lives} ready after ${Date.now() - killedAt} ms (${done}/${orders.length} orders done)`,
          );
        } else if (options.scenario === 'rolling') {
          // A rolling restart: one instance at a time gets SIGTERM (it drains what it was answering),
          // is started again, and only then the next one goes.
          const instance = gateways[i % gateways.length];
          const stoppedAt = Date.now();
          await instance.stop();
          await instance.start();
          log(
            `  instance ${(i % gateways.length) + 1} restarted (SIGTERM): ready after ${Date.now() - stoppedAt} ms (${done}/${orders.length} orders done)`,
          );
        } else if (options.scenario === 'failover') {
          // An interrupted call must be answered within answerWithinMs of the kill itself: the
          // failover's own time counts.
          gateway.readyAt.push(Date.now());
          killedAt.push(Date.now());
          await options.killPrimary!();
          await options.waitForPrimary!();
          log(
            `  primary killed #${i + 1}: writable again after ${Date.now() - gateway.readyAt[gateway.readyAt.length - 1]} ms (${done}/${orders.length} orders done)`,
          );
          await options.waitForStandby?.();
        } else {
          await options.restartPostgres!();
          gateway.readyAt.push(Date.now());
          log(`  PostgreSQL stopped immediately and restarted #${i + 1} (${done}/${orders.length} orders done)`);
        }
        faults++;
      }
    })();
    await Promise.all([load, chaos]);
    if (options.scenario === 'failover') await checkRotationAfterFailover(gateways, verdict, log);
    if (options.scenario === 'hang') faults = orders.length;

    const get = async (p: string) => {
      const res = await fetch(`${gateway.url}${p}`, {
        headers: { 'x-api-key': gateway.apiKey },
        signal: AbortSignal.timeout(30_000),
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    };
    if (options.settle) {
      log('  waiting for pending payments to be reconciled');
      const deadline = Date.now() + 150_000;
      for (;;) {
        const pending = [];
        for (const order of orders) {
          const id = order.request?.decided?.body?.paymentRequestId;
          if (!id) continue;
          const list = await get(`/payments?paymentRequestId=${id}`);
          if ((list.body?.data ?? []).some((p: any) => p.status === 'pending')) pending.push(id);
        }
        if (pending.length === 0 || Date.now() > deadline) break;
        await sleep(2000);
      }
    }

    verdict.checked++;
    for (const crash of gateways.flatMap((g) => g.crashes))
      verdict.violations.push(`the gateway process died on its own (${crash})`);
    checkAnswers(orders, gateway.readyAt.slice(1), verdict);
    // A failover interrupts every call in flight at the kill, whether it saw an error or only waited:
    // each one's definite answer counts from the kill.
    for (const at of killedAt)
      for (const exchange of orders.flatMap((o) => [o.request, o.pay, o.refundCall, o.overRefund]))
        if (exchange?.decided && exchange.startedAt <= at && exchange.decided.at >= at)
          verdict.answerAfterRestartMs.push(exchange.decided.at - at);
    const processors = {
      chargesOf: async (reference: string): Promise<Charge[]> => {
        if (processorFaults) return processorFaults.chargesOf(reference, sandbox.url);
        const res = await fetch(`${sandbox.url}/acme/v1/payments?reference=${encodeURIComponent(reference)}`);
        return res.status === 200 ? [{ processor: 'sandbox', ...(await res.json()) }] : [];
      },
    };
    await checkOutcomes(orders, { get }, processors, verdict, { settled: options.settle });
    if (processorFaults) {
      processorFaults.check(orders, verdict);
      paidThrough = {};
      for (const order of orders) {
        const body = order.pay?.decided?.body;
        if (order.pay?.decided?.status === 200 && body?.status === 'succeeded')
          paidThrough[body.processor] = (paidThrough[body.processor] ?? 0) + 1;
      }
    }
    const slow = verdict.answerAfterRestartMs.filter((ms) => ms > options.answerWithinMs);
    verdict.checked += verdict.answerAfterRestartMs.length;
    if (slow.length > 0)
      verdict.violations.push(
        `${slow.length} interrupted calls took longer than ${options.answerWithinMs} ms after the restart to get a definite answer (longest ${Math.max(...slow)} ms)`,
      );

    if (receiver) await checkDelivered(options.databaseUrl!, receiver.received, verdict, log);
    for (const g of gateways) await g.stop();
    // The stopped gateway stopped its embedded server; it is started again to read the store.
    const embedded = dataDir ? await startEmbeddedServer(dataDir, { role: 'tool' }) : undefined;
    const storage = await openStorage({ databaseUrl: embedded?.url ?? options.databaseUrl! });
    try {
      await checkStore(storage.db, verdict);
      await checkCardData(storage.db, gateways.map((g) => g.allLogs()).join(''), verdict);
    } finally {
      await storage.close();
      await embedded?.stop();
    }
  } finally {
    for (const g of gateways) await g.stop();
    await sandbox.stop();
    await receiver?.stop();
    await processorFaults?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    ...verdict,
    scenario: options.scenario,
    storage: options.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'embedded PostgreSQL',
    orders: ordersRun?.length ?? options.orders,
    requestsSent: counters.sent,
    faultsInjected: faults,
    elapsedMs: Date.now() - started,
    episodes: processorFaults?.episodes,
    paidThrough,
  };
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

export function formatReport(report: ChaosReport): string {
  const faultName = {
    kill: 'gateway kill -9',
    postgres: 'PostgreSQL immediate stops',
    hang: 'processor hangs past the time-out',
    failover: 'primary database server SIGKILLs (failover)',
    rolling: 'instance restarts (SIGTERM, one at a time)',
    'processor-faults': 'Stripe fault episodes',
  }[report.scenario];
  const times = report.answerAfterRestartMs;
  const unique = [...new Set(report.violations.map((v) => v.replace(/chaos-[\w-]+?-(\d+)-/, 'chaos-…-')))];
  return [
    `chaos ${report.scenario} on ${report.storage}: ${report.orders} orders, ${report.requestsSent} requests sent, ${report.faultsInjected} ${faultName}, ${(report.elapsedMs / 1000).toFixed(1)} s`,
    `  invariants checked: ${report.checked}; violations: ${report.violations.length}`,
    `  definite answer after the gateway was back: ${times.length} interrupted calls, median ${percentile(times, 50)} ms, p95 ${percentile(times, 95)} ms, max ${times.length ? Math.max(...times) : 0} ms`,
    ...formatEpisodes(report.episodes ?? []),
    ...(report.paidThrough
      ? [
          `  approved payments by processor: ${Object.entries(report.paidThrough)
            .map(([name, n]) => `${name} ${n}`)
            .join(', ')}`,
        ]
      : []),
    ...report.violations.slice(0, 40).map((v) => `    ✗ ${v}`),
    ...(report.violations.length > 40
      ? [`    … and ${report.violations.length - 40} more (${unique.length} distinct shapes)`]
      : []),
  ].join('\n');
}

/** A merchant's webhook receiver: answers 200 to every POST and keeps the ids of the events it got. */
async function startReceiver(): Promise<{ url: string; received: Set<string>; stop(): Promise<void> }> {
  const received = new Set<string>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      try {
        received.add((JSON.parse(body) as { id: string }).id);
      } catch {
        // not an event: still answered
      }
      response.writeHead(200).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Every payment and refund event in the outbox delivered at least once: waits up to a minute for the
 * delivery sweep (the gateways still run), then reports each one missing.
 */
async function checkDelivered(
  databaseUrl: string,
  received: Set<string>,
  verdict: Verdict,
  log: (line: string) => void,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let missing: string[] = [];
    let events = 0;
    for (const deadline = Date.now() + 60_000; ;) {
      const { rows } = await client.query<{ id: string; type: string }>(
        `select 'evt_' || id as id, type from outbox_events where type like 'payment.%' or type like 'refund.%'`,
      );
      events = rows.length;
      missing = rows.filter((row) => !received.has(row.id)).map((row) => `${row.id} (${row.type})`);
      if (missing.length === 0 || Date.now() > deadline) break;
      await sleep(1000);
    }
    verdict.checked += events;
    log(`  notifications: ${events} payment and refund events, ${received.size} received by the merchant's endpoint`);
    for (const event of missing) verdict.violations.push(`event ${event}: in the outbox, never delivered`);
  } finally {
    await client.end();
  }
}
