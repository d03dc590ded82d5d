import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { ROOT } from '../../test/helpers/processes.js';
import { createChaosDatabase } from './postgres.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/**
 * The throwaway highly available cluster of scripts/ha-cluster.sh (etcd, Patroni-managed PostgreSQL in
 * synchronous mode, HAProxy to the primary) on ports of the run's own, for the failover scenario.
 */
export function haCluster(proxyPort: number) {
  const env = {
    ...process.env,
    HA_PROXY_PORT: String(proxyPort),
    HA_ETCD_PORT: String(proxyPort + 10),
    HA_PG_PORT: String(proxyPort + 20),
    HA_API_PORT: String(proxyPort + 30),
  };
  const script = (action: string) =>
    execFileSync('scripts/ha-cluster.sh', [action], { cwd: ROOT, env, encoding: 'utf8' }).trim();
  let adminUrl = '';

  /** A write committed through HAProxy: a primary with a synchronous standby acknowledging it. */
  const writes = async (): Promise<boolean> => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000, query_timeout: 3000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('create table if not exists ha_probe (at timestamptz)');
      await client.query('insert into ha_probe values (now())');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  };

  return {
    /** Starts the cluster; resolves to the admin URL through HAProxy. */
    start: (): string => (adminUrl = script('start')),
    stop: () => script('stop'),
    /** SIGKILLs the leader's Patroni and postmaster (the node is started again as a standby); resolves to its name. */
    async killPrimary(): Promise<string> {
      const { stdout } = await run('scripts/ha-cluster.sh', ['kill-primary'], { cwd: ROOT, env });
      return stdout.trim();
    },
    /** Resolves once a write commits through HAProxy again (a minute at most). */
    async waitForPrimary(): Promise<void> {
      const deadline = Date.now() + 60_000;
      while (!(await writes())) {
        if (Date.now() > deadline) throw new Error('no primary took writes within a minute of the kill');
        await sleep(250);
      }
    },
    /** Resolves once every node runs on the leader's timeline with a synchronous standby named (two minutes at most). */
    async waitForStandby(): Promise<void> {
      const deadline = Date.now() + 120_000;
      for (;;) {
        try {
          await run('scripts/ha-cluster.sh', ['healthy'], { cwd: ROOT, env });
          return;
        } catch {
          if (Date.now() > deadline)
            throw new Error('the cluster had no synchronous standby two minutes after the kill');
          await sleep(500);
        }
      }
    },
    freshDatabase: () => createChaosDatabase(adminUrl),
  };
}
