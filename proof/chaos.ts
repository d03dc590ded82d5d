import { buildOnce } from '../test/helpers/processes.js';
import { integerOptions } from './args.js';
import { chaosCluster } from './chaos/postgres.js';
import { runFailover } from './chaos/failover.js';
import { formatDrill, runRestoreDrill } from './chaos/restore-drill.js';
import { formatReport, runChaos, type ChaosReport, type Scenario } from './chaos/run.js';

const SCENARIOS: Scenario[] = ['kill', 'postgres', 'hang', 'rolling', 'processor-faults'];

/** `--only a,b`: the scenarios to run (all by default); the rest of the arguments are integer options. */
function scenarioSelection(argv: string[]): { only: Set<Scenario>; rest: string[] } {
  const rest = [...argv];
  const at = rest.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  if (at < 0) return { only: new Set(SCENARIOS), rest };
  const value = rest[at].includes('=') ? rest[at].slice('--only='.length) : rest[at + 1];
  rest.splice(at, rest[at].includes('=') ? 1 : 2);
  const names = (value ?? '').split(',').filter(Boolean);
  const unknown = names.filter((name) => !SCENARIOS.includes(name as Scenario));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--only takes scenarios among ${SCENARIOS.join(', ')} (got "${value ?? ''}")`);
  return { only: new Set(names as Scenario[]), rest };
}

/**
 * `npm run chaos [-- --only kill,postgres,hang,rolling,processor-faults --orders N --kills N --pg-stops N
 * --hang-orders N --rolling-orders N --restarts N --fault-orders N --processor-faults N
 * --requests-per-fault N --concurrency N --seed N --pg-port N]`: the long chaos run (docs/reliability.md)
 * on a throwaway PostgreSQL cluster of its own: gateway kill -9 under load, PostgreSQL stopped immediately
 * and restarted, the processor holding its answers past the gateway's time-out after charging, a rolling
 * restart of two instances, and the merchant's first processor connection (Stripe) hanging or refusing
 * mid-load with a second one behind it. Prints each scenario's report; exits 1 on any violation.
 * `--failover` and `--restore-drill` as the first argument run those proofs instead (below).
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--failover') return failover(argv.slice(1));
  if (argv[0] === '--restore-drill') return restoreDrill(argv.slice(1));
  const { only, rest } = scenarioSelection(argv);
  const o = integerOptions(rest, {
    orders: 600,
    kills: 12,
    'pg-orders': 300,
    'pg-stops': 5,
    'hang-orders': 60,
    'rolling-orders': 200,
    restarts: 4,
    'fault-orders': 300,
    'processor-faults': 6,
    'requests-per-fault': 10,
    concurrency: 12,
    seed: Date.now() % 1_000_000,
    'pg-port': 55900,
    'deadline-ms': 90_000,
    'answer-within-ms': 5_000,
  });
  buildOnce();
  const cluster = chaosCluster(o['pg-port']);
  const admin = cluster.start();
  const reports: ChaosReport[] = [];
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const common = {
    seed: o.seed,
    concurrency: o.concurrency,
    deadlineMs: o['deadline-ms'],
    answerWithinMs: o['answer-within-ms'],
    log,
  };
  try {
    log(`chaos: seed ${o.seed}, PostgreSQL at ${admin}`);
    if (only.has('kill')) {
      reports.push(
        await runChaos({
          ...common,
          // The default store: each killed gateway leaves its embedded server running for the next to take over.
          scenario: 'kill',
          orders: o.orders,
          faults: o.kills,
          settle: true,
        }),
      );
      log(formatReport(reports[reports.length - 1]));
    }
    if (only.has('postgres')) {
      reports.push(
        await runChaos({
          ...common,
          scenario: 'postgres',
          orders: o['pg-orders'],
          faults: o['pg-stops'],
          databaseUrl: await cluster.freshDatabase(admin),
          settle: true,
          restartPostgres: () => cluster.crashAndRestart(1000),
        }),
      );
      log(formatReport(reports[reports.length - 1]));
    }
    if (only.has('hang')) {
      reports.push(
        await runChaos({
          ...common,
          scenario: 'hang',
          orders: o['hang-orders'],
          faults: 0,
          databaseUrl: await cluster.freshDatabase(admin),
          settle: true,
        }),
      );
      log(formatReport(reports[reports.length - 1]));
    }
    if (only.has('rolling')) {
      reports.push(
        await runChaos({
          ...common,
          // Two instances on one database, restarted one at a time with SIGTERM, as a deploy does.
          scenario: 'rolling',
          orders: o['rolling-orders'],
          faults: o.restarts,
          instances: 2,
          databaseUrl: await cluster.freshDatabase(admin),
          settle: true,
        }),
      );
      log(formatReport(reports[reports.length - 1]));
    }
    if (only.has('processor-faults')) {
      reports.push(
        await runChaos({
          ...common,
          scenario: 'processor-faults',
          orders: o['fault-orders'],
          faults: o['processor-faults'],
          requestsPerFault: o['requests-per-fault'],
          databaseUrl: await cluster.freshDatabase(admin),
          settle: true,
        }),
      );
    }
  } finally {
    cluster.stop();
  }
  process.stdout.write(`${reports.map(formatReport).join('\n')}\n`);
  const total = reports.reduce((n, r) => n + r.violations.length, 0);
  process.stdout.write(
    `chaos: ${reports.reduce((n, r) => n + r.requestsSent, 0)} requests, ${reports.reduce((n, r) => n + r.faultsInjected, 0)} faults, ${reports.reduce((n, r) => n + r.checked, 0)} invariants checked, ${total} violations\n`,
  );
  process.exitCode = total === 0 ? 0 : 1;
}

/**
 * `npm run chaos -- --failover [--orders N --kills N --concurrency N --seed N --ha-port N]`: two gateway
 * instances through HAProxy on a Patroni cluster (scripts/ha-cluster.sh), the primary SIGKILLed `kills`
 * times under load; every interrupted call must be answered within 20 s of the kill.
 */
async function failover(argv: string[]): Promise<void> {
  const o = integerOptions(argv, {
    orders: 300,
    kills: 3,
    concurrency: 12,
    seed: Date.now() % 1_000_000,
    'ha-port': 55700,
    'deadline-ms': 60_000,
    'answer-within-ms': 20_000,
  });
  buildOnce();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`chaos --failover: seed ${o.seed}`);
  const report = await runFailover({
    orders: o.orders,
    kills: o.kills,
    concurrency: o.concurrency,
    seed: o.seed,
    haPort: o['ha-port'],
    deadlineMs: o['deadline-ms'],
    answerWithinMs: o['answer-within-ms'],
    settle: true,
    log,
  });
  process.stdout.write(`${formatReport(report)}\n`);
  process.exitCode = report.violations.length === 0 && report.faultsInjected >= Math.min(2, o.kills) ? 0 : 1;
}

/**
 * `npm run chaos -- --restore-drill [--orders N --seed N]`: a base backup and archived WAL restored to a
 * point in time into a new cluster, a gateway started on it, every payment acknowledged before the point
 * found there with its outcome and none after it (proof/chaos/restore-drill.ts).
 */
async function restoreDrill(argv: string[]): Promise<void> {
  const o = integerOptions(argv, { orders: 20, seed: Date.now() % 1_000_000 });
  buildOnce();
  const report = await runRestoreDrill({ ...o, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${formatDrill(report)}\n`);
  process.exitCode = report.violations.length === 0 && report.before > 0 && report.after > 0 ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`chaos failed: ${(error as Error).stack}\n`);
  process.exit(2);
});
