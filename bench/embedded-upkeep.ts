import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { upkeepAction, type UpkeepDone } from '../src/storage/upkeep.js';
import { openStorage } from '../src/storage/db.js';
import { runLoad } from './load.js';
import { baseEnv, freePort, runNode, spawnGateway, startChild, waitForHttp, type Child } from './processes.js';
import { createPaymentRequests, h2hCardBody, testApiKey } from './supply.js';

/**
 * `npm run bench:upkeep [-- --payments 8000 --idle 70]` The embedded store's upkeep (src/storage/upkeep.ts)
 * under load: on a fresh DATA_DIR, two runs of the gateway (as `npm start` runs it, durable commits), each
 * two loads of `--payments` approved h2h card payments at 32 connections and then `--idle` seconds without
 * traffic, so its once-a-minute pass comes. Prints each load's rate and latency, each upkeep the gateway
 * logged (the table, what it did, its pause in ms) and, at the end, the largest tables' sizes and row
 * estimates. docs/performance.md ("The embedded store's upkeep") records a run.
 */
const { values: args } = parseArgs({
  options: { payments: { type: 'string', default: '8000' }, idle: { type: 'string', default: '70' } },
});
const PAYMENTS = Number(args.payments);
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USER = { email: 'upkeep@example.com', password: 'bench-password-123', name: 'Upkeep bench' };
const secret = () => randomBytes(32).toString('base64url');
const SECRETS = { JWT_SECRET: secret(), CALLBACK_SIGNING_SECRET: secret() };
const clock = () => new Date().toISOString().slice(11, 19);

/** Prints the gateway's `embedded store upkeep` log lines as they come. */
function printUpkeep(gateway: Child): void {
  let pending = '';
  gateway.process.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (!line.includes('"embedded store upkeep"')) continue;
      const { upkeep } = JSON.parse(line) as { upkeep: UpkeepDone };
      console.log(`${clock()}  upkeep ${upkeep.table}: ${upkeepAction(upkeep)}, ${upkeep.ms} ms`);
    }
  });
}

async function gatewayRun(dataDir: string, userId: number, run: number): Promise<void> {
  const [gatewayPort, sandboxPort] = [await freePort(), await freePort()];
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const sandbox = startChild('sandbox', [path.join(DIST, 'sandbox/main.js')], {
    ...baseEnv(),
    SANDBOX_PORT: String(sandboxPort),
    GATEWAY_URL: gatewayUrl,
    CALLBACK_SIGNING_SECRET: SECRETS.CALLBACK_SIGNING_SECRET,
    SANDBOX_LATENCY_MS: '0',
  });
  const gateway = spawnGateway([], {
    ...baseEnv(),
    ...SECRETS,
    DATA_DIR: dataDir,
    NODE_ENV: 'development',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '10000000',
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: gatewayUrl,
    SANDBOX_URL: sandboxUrl,
  });
  try {
    printUpkeep(gateway);
    await waitForHttp(`${sandboxUrl}/`, sandbox);
    await waitForHttp(`${gatewayUrl}/healthz`, gateway);
    const apiKey = await testApiKey(gatewayUrl, { ...USER, userId });
    for (const load of [1, 2]) {
      const ids = await createPaymentRequests(gatewayUrl, apiKey, PAYMENTS);
      let next = 0;
      console.log(`${clock()}  run ${run}, load ${load}: ${PAYMENTS} payments`);
      const result = await runLoad({
        url: gatewayUrl,
        connections: 32,
        durationSeconds: 600,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: h2hCardBody(),
        nextPath: () => `/payments/h2h/${ids[next++]}`,
        amount: ids.length,
        isFailure: (body) => !body.includes('"succeeded"'),
      });
      const { ok, perSecond, p50, p99, errors } = result;
      console.log(
        `${clock()}  ${ok} approved, ${Math.round(perSecond)}/s, p50 ${p50} ms, p99 ${p99} ms, ${errors} errors`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Number(args.idle) * 1000));
  } finally {
    await gateway.stop();
    await sandbox.stop();
  }
}

async function printSizes(dataDir: string): Promise<void> {
  const storage = await openStorage({ dataDir });
  try {
    const { rows } = await sql<{ table: string; mb: number; reltuples: number }>`
      select c.relname as table, round(pg_total_relation_size(c.oid) / 1048576.0, 2)::float8 as mb, c.reltuples
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' order by pg_total_relation_size(c.oid) desc limit 6`.execute(
      storage.db,
    );
    console.table(rows);
    const { rows: all } = await sql<{ mb: number }>`
      select round(pg_database_size(current_database()) / 1048576.0, 1)::float8 as mb`.execute(storage.db);
    console.log(`whole database: ${all[0].mb} MB`);
  } finally {
    await storage.close();
  }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'upkeep-bench-'));
try {
  const env = { ...baseEnv(), DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn' };
  const cli = [path.join(DIST, 'src/cli.js'), 'merchant', 'create', '--email', USER.email];
  const created = await runNode([...cli, '--password', USER.password, '--name', USER.name], env);
  const { userId } = JSON.parse(created) as { userId: number };
  for (const run of [1, 2]) await gatewayRun(dataDir, userId, run);
  await printSizes(dataDir);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
