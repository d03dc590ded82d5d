import cluster, { type Worker } from 'node:cluster';
import { printBanner } from './banner.js';
import type { Config } from './config.js';
import { systemClock } from './lib/clock.js';
import {
  pointSandboxAt,
  prepareStore,
  startBuiltInSandbox,
  startEmbeddedDatabase,
  type StartOptions,
} from './server.js';

/**
 * WORKERS > 1: one primary process and that many workers sharing the port (Node's cluster module).
 * The primary runs the embedded PostgreSQL server when there is no DATABASE_URL (workers get its URL),
 * prepares the store once (migrations, generated secrets and the demo merchant would race in several
 * workers) and runs the one built-in sandbox network, whose in-flight 3-D Secure and UPI
 * pages must be the same whichever worker a browser reaches. Workers share nothing else: every
 * request, job and idempotency claim goes through PostgreSQL, as between instances on several machines.
 */
const SANDBOX_URL_ENV = 'SVC_WORKER_SANDBOX_URL';

interface Listening {
  type: 'svc-listening';
  url: string;
}

export function workerOptions(): StartOptions {
  return { worker: { builtInSandboxUrl: process.env[SANDBOX_URL_ENV] } };
}

export function reportListening(url: string): void {
  process.send?.({ type: 'svc-listening', url } satisfies Listening);
}

export async function runPrimary(config: Config): Promise<void> {
  const embedded = await startEmbeddedDatabase(config);
  const { storage, secrets, demo } = await prepareStore(config, systemClock, embedded).catch(async (error: Error) => {
    await embedded?.stop();
    throw error;
  });
  await storage.close();
  const sandbox = config.sandboxUrl ? undefined : await startBuiltInSandbox(config, secrets);
  const fork = () =>
    cluster.fork({
      ...(sandbox ? { [SANDBOX_URL_ENV]: sandbox.url } : {}),
      ...(embedded ? { DATABASE_URL: embedded.url } : {}),
    });

  const reforkDelay = crashBackoff();
  let stopping = false;
  let started = false;
  // Started once every worker listens: the banner promises a gateway at full strength.
  const listening = new Promise<string>((resolve, reject) => {
    let ready = 0;
    cluster.on('message', (_worker, message: Partial<Listening> | null) => {
      if (message?.type === 'svc-listening' && message.url && ++ready === config.workers) resolve(message.url);
    });
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      // One that never listened has said why on the shared stderr (a taken port, a bad store): give up.
      if (!started) return reject(new Error(`a worker could not start (exit ${code ?? signal})`));
      const delay = reforkDelay(Date.now());
      process.stderr.write(
        `svc-gateway: worker ${worker.process.pid} ended (${code ?? signal}); starting another in ${delay / 1000} s\n`,
      );
      setTimeout(fork, delay);
    });
  });
  const stop = async () => {
    stopping = true;
    await stopWorkers();
    await sandbox?.close();
    await embedded?.stop();
  };
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));

  for (let i = 0; i < config.workers; i++) fork();
  const url = await listening.catch(async (error: Error) => {
    await stop();
    throw error;
  });
  started = true;
  if (sandbox) pointSandboxAt(sandbox, config, url);
  printBanner(config, url, demo, embedded);
}

/**
 * How long to wait before replacing a worker that ended: 1 s, doubled for each end since the last quiet
 * spell of 5 minutes, at most 60 s, so a worker that crashes on every start (a bad deploy, a store that
 * refuses it) is retried without the primary spinning on forks.
 */
export function crashBackoff(): (now: number) => number {
  let streak = 0;
  let lastEnd = -Infinity;
  return (now) => {
    streak = now - lastEnd > 5 * 60_000 ? 1 : streak + 1;
    lastEnd = now;
    return Math.min(1000 * 2 ** (streak - 1), 60_000);
  };
}

/** Each worker stops gracefully (in-flight requests finish); resolves once all have ended. */
async function stopWorkers(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker);
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) return resolve();
          worker.once('exit', () => resolve());
          worker.process.kill('SIGTERM');
        }),
    ),
  );
}
