import { buildOnce } from '../test/helpers/processes.js';
import { integerOptions } from './args.js';
import { chaosCluster } from './chaos/postgres.js';
import { formatReport, runChaos, type ChaosReport } from './chaos/run.js';

/**
 * `npm run chaos [-- --orders N --kills N --pg-stops N --hang-orders N --concurrency N --seed N --pg-port N]`:
 * the long chaos run (docs/reliability.md) on a throwaway PostgreSQL cluster of its own: gateway
 * kill -9 under load, PostgreSQL stopped immediately and restarted, the processor holding its answers
 * past the gateway's time-out after charging. Prints each scenario's report; exits 1 on any violation.
 */
async function main(): Promise<void> {
  const o = integerOptions(process.argv.slice(2), {
    orders: 600,
    kills: 12,
    'pg-orders': 300,
    'pg-stops': 5,
    'hang-orders': 60,
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
