import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { baseEnv, freePort, spawnGateway, waitForHttp } from './processes.js';

/**
 * `node dist/bench/idle-rss.js [--database-url postgres://…] [--settle 10]`
 * Idle resident memory of the gateway as `npm start` runs it (scripts/gateway.sh): on a fresh
 * embedded store (the first start, which creates the database), on that store opened again, and
 * with DATABASE_URL when given. Read from /proc/<pid>/status after the gateway has answered
 * /healthz and sat idle for `--settle` seconds.
 */
const { values: args } = parseArgs({
  options: { 'database-url': { type: 'string' }, settle: { type: 'string', default: '10' } },
});

const residentMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
};

async function idleRss(db: Record<string, string>): Promise<number> {
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
    return residentMb(gateway.process.pid!);
  } finally {
    await gateway.stop();
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-rss-'));
try {
  process.stdout.write(`embedded store, first start: ${await idleRss({ DATA_DIR: dataDir })} MB\n`);
  process.stdout.write(`embedded store, next start: ${await idleRss({ DATA_DIR: dataDir })} MB\n`);
  if (args['database-url'])
    process.stdout.write(`DATABASE_URL: ${await idleRss({ DATABASE_URL: args['database-url'] })} MB\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
