import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCpuMeter } from './cpu.js';
import { runLoad } from './load.js';
import { baseEnv, freePort, spawnGateway, waitForHttp } from './processes.js';

/**
 * An authenticated `GET /ping`'s CPU, to compare two builds run alternately (on a shared machine the rates
 * of one run each say little): this tree's gateway on a fresh embedded store with its demo merchant, the
 * key read from the start banner, 32 connections for a 3 s warm-up and `seconds` measured, the body
 * checked as the bench checks it. Prints pings/s and the CPU ms per ping of the gateway and of the load
 * generator. Usage, in each tree: `node dist/bench/ping-cpu.js [seconds]`.
 */
async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 8);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-ping-'));
  // As root the server runs as the user postgres, which must enter DATA_DIR (mkdtemp makes it 0700).
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = spawnGateway([], {
    ...baseEnv(),
    NODE_ENV: 'development',
    SEED_DEMO: 'true',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '10000000',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
  });
  try {
    await waitForHttp(`${url}/healthz`, gateway);
    const key = /X-API-Key: (svc_test_sk_\w+)/.exec(gateway.output())?.[1];
    if (!key) throw new Error(`no demo API key in the gateway's banner:\n${gateway.output()}`);
    const load = (durationSeconds: number) =>
      runLoad({
        url: `${url}/ping`,
        connections: 32,
        durationSeconds,
        method: 'GET',
        headers: { 'x-api-key': key },
        isFailure: (body) => !body.includes('pong'),
      });
    await load(3);
    const meter = startCpuMeter({ gateway: gateway.process.pid! });
    const result = await load(seconds);
    const cpu = meter.read();
    const per = (group: string) => (cpu[group] / result.ok).toFixed(4);
    process.stdout.write(
      `${Math.round(result.perSecond)} pings/s, ${result.errors} errors, p99 ${result.p99} ms; CPU ms per ping: gateway ${per('gateway')}, load generator ${per('load generator')}\n`,
    );
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
