import { buildOnce } from '../test/helpers/processes.js';
import { integerOptions } from './args.js';
import { chaosCluster } from './chaos/postgres.js';
import { formatReport, runChaos, type ChaosReport, type Scenario } from './chaos/run.js';

const SCENARIOS: Scenario[] = ['kill', 'postgres', 'hang', 'processor-faults'];

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
 * `npm run chaos [-- --only kill,postgres,hang,processor-faults --orders N --kills N --pg-stops N
 * --hang-orders N --fault-orders N --processor-faults N --requests-per-fault N --concurrency N --seed N
 * --pg-port N]`: the long chaos run (docs/reliability.md) on a throwaway PostgreSQL cluster of its own:
 * gateway kill -9 under load, PostgreSQL stopped immediately and restarted, the processor holding its
 * answers past the gateway's time-out after charging, and the merchant's first processor connection
 * (Stripe) hanging or refusing mid-load with a second one behind it. Prints each scenario's report;
 * exits 1 on any violation.
 */
async function main(): Promise<void> {
  const { only, rest } = scenarioSelection(process.argv.slice(2));
  const o = integerOptions(rest, {
    orders: 600,
    kills: 12,
    'pg-orders': 300,
    'pg-stops': 5,
    'hang-orders': 60,
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

main().catch((error) => {
  process.stderr.write(`chaos failed: ${(error as Error).stack}\n`);
  process.exit(2);
});
