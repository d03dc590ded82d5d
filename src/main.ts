import cluster from 'node:cluster';
import { printBanner } from './banner.js';
import { runPrimary, workerOptions, reportListening } from './cluster.js';
import { ConfigError, loadConfig } from './config.js';
import { collectWhenIdle } from './lib/idle-gc.js';
import { startGateway } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);

  const gateway = await startGateway(config, cluster.isWorker ? workerOptions() : {});
  collectWhenIdle();
  // Graceful stop: refuse new connections, let in-flight requests finish, close storage, exit 0.
  // Installed before the banner, so a signal sent as soon as the banner appears is handled too.
  const stop = async (signal: string) => {
    gateway.app.log.info({ signal }, 'shutting down');
    try {
      await gateway.close();
      process.exit(0);
    } catch (error) {
      gateway.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  if (cluster.isWorker) reportListening(gateway.url);
  else printBanner(config, gateway.url, gateway.demo, gateway.embedded);
}

main().catch((error) => {
  process.stderr.write(`svc-gateway failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
