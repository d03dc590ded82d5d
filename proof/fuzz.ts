import { prepareTestDatabases } from '../test/helpers/database.js';
import { startTestGateway } from '../test/helpers/gateway.js';
import { fuzzTarget } from '../test/proof/target.js';
import { integerOptions } from './args.js';
import { formatSummary, runFuzz } from './fuzz/run.js';

/**
 * `npm run fuzz [-- --seed N --count N --concurrency N]`: the long contract fuzz (docs/security.md).
 * Starts a gateway on a fresh database of the test suite's PostgreSQL server (test/global-setup.ts:
 * TEST_POSTGRES_SERVER, or the throwaway cluster scripts/pg-cluster.sh starts), and exits non-zero when
 * any answer breaks the published contract.
 */
async function main(): Promise<void> {
  const options = integerOptions(process.argv.slice(2), {
    seed: Date.now() % 1_000_000,
    count: 50_000,
    concurrency: 4,
  });
  const dropTemplate = await prepareTestDatabases();
  const gw = await startTestGateway({ env: { RATE_LIMIT_MAX: '10000000', LOG_LEVEL: 'warn' } });
  try {
    process.stderr.write(`fuzzing ${gw.url}, seed ${options.seed}, ${options.count} probes\n`);
    const summary = await runFuzz(fuzzTarget(gw), {
      ...options,
      sweep: true,
      onProgress: (done) => done % 5000 === 0 && process.stderr.write(`  ${done} probes\n`),
    });
    process.stdout.write(`${formatSummary(summary)}\n`);
    process.exitCode = summary.failureCount === 0 ? 0 : 1;
  } finally {
    await gw.close();
    await dropTemplate();
  }
}

main().catch((error) => {
  process.stderr.write(`fuzz failed: ${(error as Error).stack}\n`);
  process.exit(2);
});
