import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { ROOT } from '../../test/helpers/processes.js';

/**
 * A throwaway PostgreSQL cluster of the chaos run's own (scripts/pg-cluster.sh on its own port and
 * directory), so it can be stopped the hard way without touching any other server.
 */
export function chaosCluster(port: number) {
  const dir = `/tmp/svc-gateway-chaos-pg-${port}`;
  const env = { ...process.env, PG_TEST_PORT: String(port), PG_TEST_DIR: dir };
  const bin = () => execFileSync('scripts/pg-cluster.sh', ['bindir'], { cwd: ROOT, env, encoding: 'utf8' }).trim();
  const asPostgres = (args: string[]) =>
    process.getuid?.() === 0
      ? execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'ignore' })
      : execFileSync(args[0], args.slice(1), { stdio: 'ignore' });
  return {
    start: (): string => execFileSync('scripts/pg-cluster.sh', ['start'], { cwd: ROOT, env, encoding: 'utf8' }).trim(),
    stop: () => execFileSync('scripts/pg-cluster.sh', ['stop'], { cwd: ROOT, env, stdio: 'ignore' }),
    /**
     * `pg_ctl stop -m immediate` (no checkpoint: crash recovery on the next start), then start the same
     * cluster again (with pg_ctl: scripts/pg-cluster.sh makes a fresh cluster when none answers).
     */
    async crashAndRestart(downMs: number): Promise<void> {
      asPostgres([`${bin()}/pg_ctl`, '-D', dir, '-m', 'immediate', 'stop']);
      await new Promise((wake) => setTimeout(wake, downMs));
      asPostgres([`${bin()}/pg_ctl`, '-D', dir, '-l', `${dir}/server.log`, '-w', '-t', '60', 'start']);
    },
    freshDatabase: createChaosDatabase,
  };
}

/** A new, empty database on the server `adminUrl` reaches, for one scenario: its URL. */
export async function createChaosDatabase(adminUrl: string): Promise<string> {
  const name = `chaos_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
