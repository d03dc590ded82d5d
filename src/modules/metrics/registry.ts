import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../../lib/clock.js';
import type { Db, Storage } from '../../storage/db.js';
import { groupStats, type GroupStats } from '../../storage/group-commit.js';
import { queueLag } from './repository.js';

/**
 * The gateway's Prometheus metrics, one registry per gateway (tests run several in one process).
 * Counted in process where the work happens (cheap: a histogram observation per answer, a counter
 * increment per payment status change this instance committed); read from the store at scrape time
 * only for what the store knows better and answers from an index (queue lag).
 */
export interface Metrics {
  registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** A payment this instance moved into `status`, after the move committed. */
  countPayment(status: string, processor: string, livemode: boolean): void;
  close(): void;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the metrics read: a structural slice, as they are made before the context that will hold them (app.ts). */
interface MetricsSources {
  db: Db;
  clock: Clock;
  storage: Pick<Storage, 'poolStats'>;
  keyCache: { stats(): { hits: number; misses: number } };
  /** The processor connections' circuits this instance keeps (processors/circuit-breaker.ts). */
  circuits: { states(): Array<{ connectionId: string; state: 'closed' | 'half_open' | 'open' }> };
}

/** A circuit as a number a graph can plot and an alert can compare. */
const CIRCUIT_STATE_VALUES = { closed: 0, half_open: 1, open: 2 } as const;

export function createMetrics(ctx: MetricsSources, processorsUrl: string) {
  const registry = new Registry();
  // prom-client's process and Node.js metrics keep their standard names (process_*, nodejs_*), which
  // stock Node.js dashboards query; the gateway's own are named svc_<what>_<base unit> (_seconds, _bytes), counters ending in _total.
  collectDefaultMetrics({ register: registry });

  const requests = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP answers by method, route and status, and how long they took',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const processorCalls = new Histogram({
    name: 'svc_processor_request_duration_seconds',
    help: 'Calls to payment processors (until the answer head), by processor and status',
    labelNames: ['processor', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const payments = new Counter({
    name: 'svc_payments_total',
    help: 'Payments this instance moved into each status (committed), by processor and mode; sum across instances',
    labelNames: ['status', 'processor', 'mode'],
    registers: [registry],
  });
  new Gauge({
    name: 'svc_queue_lag_seconds',
    help: 'How long the oldest due item has waited past its time: jobs, and notification attempts',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const now = ctx.clock.now();
      const lag = await queueLag(ctx.db, now);
      const seconds = (oldest: Date | null) => (oldest ? (now.getTime() - new Date(oldest).getTime()) / 1000 : 0);
      this.set({ queue: 'jobs' }, seconds(lag.jobs));
      this.set({ queue: 'notifications' }, seconds(lag.deliveries));
    },
  });
  new Counter({
    name: 'svc_key_cache_lookups_total',
    help: 'API-key lookups answered from the cache (hit) or the database (miss)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const stats = ctx.keyCache.stats();
      this.reset();
      this.inc({ result: 'hit' }, stats.hits);
      this.inc({ result: 'miss' }, stats.misses);
    },
  });
  new Gauge({
    name: 'svc_db_pool_connections',
    help: 'Database pool connections: total, idle, and requests waiting for one (PostgreSQL only)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = ctx.storage.poolStats();
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });

  new Gauge({
    name: 'svc_processor_circuit_state',
    help: "Each processor connection's circuit in this instance: 0 closed (called), 1 half-open (one probe), 2 open (skipped)",
    labelNames: ['connection_id'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { connectionId, state } of ctx.circuits.states()) {
        this.set({ connection_id: connectionId }, CIRCUIT_STATE_VALUES[state]);
      }
    },
  });

  // Group commit (DATABASE_GROUP_COMMIT): rows ÷ statements is the mean group size.
  const groupCounter = (name: string, help: string, count: keyof GroupStats) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const stats = groupStats(ctx.db);
        if (!stats) return;
        this.reset();
        this.inc(stats[count]);
      },
    });
  groupCounter('svc_db_group_statements_total', 'Multi-row statements sent by group commit', 'statements');
  groupCounter(
    'svc_db_group_rows_total',
    'Statements (payment moves, attempt records) carried by group commit’s multi-row statements',
    'rows',
  );
  groupCounter(
    'svc_db_group_refused_total',
    'Multi-row statements the database refused (their moves then ran alone)',
    'refused',
  );

  const stopWatching = watchProcessorCalls(processorsUrl, (processor, status, seconds) =>
    processorCalls.observe({ processor, status }, seconds),
  );
  // One labelled child per method, route and status, looked up by a string: prom-client would sort and
  // join the label object on every observation, a cost every answer would pay.
  const requestsBy = new Map<string, ReturnType<typeof requests.labels>>();
  const observeRequest = (method: string, route: string, status: number, seconds: number) => {
    const key = `${method} ${status} ${route}`;
    let child = requestsBy.get(key);
    if (!child) {
      child = requests.labels({ method, route, status });
      requestsBy.set(key, child);
    }
    child.observe(seconds);
  };
  return {
    registry,
    observeRequest,
    countPayment: (status, processor, livemode) =>
      payments.inc({ status, processor, mode: livemode ? 'live' : 'test' }),
    close: stopWatching,
  } satisfies Metrics;
}

/**
 * Processor calls timed from undici's diagnostics channels, so the processor adapters stay as they
 * are: every request to the processors' origin, labelled by the first path segment (the processor).
 */
function watchProcessorCalls(processorsUrl: string, observe: (processor: string, status: string, s: number) => void) {
  const origin = new URL(processorsUrl).origin;
  const started = new WeakMap<object, { processor: string; at: bigint }>();
  type Message = { request: { origin?: string | URL; path: string }; response?: { statusCode: number } };
  const onCreate = (message: unknown) => {
    const { request } = message as Message;
    if (String(request.origin) !== origin) return;
    started.set(request, { processor: request.path.split('/')[1] ?? '', at: process.hrtime.bigint() });
  };
  const finish = (status: (message: Message) => string) => (message: unknown) => {
    const call = started.get((message as Message).request);
    if (!call) return;
    started.delete((message as Message).request);
    observe(call.processor, status(message as Message), Number(process.hrtime.bigint() - call.at) / 1e9);
  };
  const onHeaders = finish((message) => String(message.response?.statusCode ?? 0));
  const onError = finish(() => 'error');
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);
  return () => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:headers', onHeaders);
    unsubscribe('undici:request:error', onError);
  };
}
