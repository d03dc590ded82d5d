import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatMemory, idleMemory, type IdleMemory } from './memory.js';
import { baseEnv, freePort, spawnGateway, waitForHttp } from './processes.js';

/**
 * `node dist/bench/idle-memory.js [--database-url postgres://…] [--settle 10]`
 * Idle memory of the gateway as `npm start` runs it (scripts/gateway.sh), as PSS (bench/memory.ts): on
 * the embedded store, the gateway and every process of the PostgreSQL server it starts, on a fresh
 * DATA_DIR (the first start, which makes the cluster and migrates it) and on that DATA_DIR again; with
 * DATABASE_URL when given, the gateway alone (that server is not the gateway's to count). Read after the
 * gateway has answered /healthz and sat idle for `--settle` seconds. `npm run bench` reads the same after
 * its payment load.
 */
const { values: args } = parseArgs({
  options: { 'database-url': { type: 'string' }, settle: { type: 'string', default: '10' } },
});

async function idle(db: Record<string, string>, pgdata?: string): Promise<IdleMemory> {
  const port = await freePort();
  const secret = () => randomBytes(32).toString('base64url');
  const gateway = spawnGateway([], {
    ...baseEnv(),
    ...db,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    JWT_SECRET: secret(),
    CALLBACK_SIGNING_SECRET: secret(),
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, gateway);
    await new Promise((resolve) => setTimeout(resolve, Number(args.settle) * 1000));
    return idleMemory(gateway.process.pid!, pgdata);
  } finally {
    await gateway.stop();
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
// As root the server runs as the user postgres, which must enter DATA_DIR (mkdtemp makes it 0700).
chmodSync(dataDir, 0o755);
const pgdata = path.join(dataDir, 'postgresql');
try {
  process.stdout.write(`embedded store, first start: ${formatMemory(await idle({ DATA_DIR: dataDir }, pgdata))}\n`);
  process.stdout.write(`embedded store, next start: ${formatMemory(await idle({ DATA_DIR: dataDir }, pgdata))}\n`);
  if (args['database-url'])
    process.stdout.write(`DATABASE_URL: ${formatMemory(await idle({ DATABASE_URL: args['database-url'] }))}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
