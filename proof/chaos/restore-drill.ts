import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from '../../test/helpers/processes.js';
import { runOrder, type ClientOptions, type Order } from './clients.js';
import { freePort, GatewayLives, startSandboxProcess } from './processes.js';

/**
 * The restore drill (docs/operations.md, "Backups and restores"): a backup is only as good as its last
 * restore. On a throwaway PostgreSQL 15 server that archives its WAL (archive_command), it takes a base
 * backup with pg_basebackup, makes payments through a gateway, notes a point in time, makes more, then
 * restores the base backup and the archived WAL to that point into a new cluster (recovery_target_time),
 * starts a gateway on it, and checks that every payment acknowledged before the point is there with its
 * outcome, and that none made after it is.
 */
export interface DrillReport {
  before: number;
  after: number;
  checked: number;
  violations: string[];
  restoreMs: number;
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
const asRoot = process.getuid?.() === 0;

function asPostgres(args: string[]): string {
  return asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : execFileSync(args[0], args.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function runRestoreDrill(o: {
  orders: number;
  seed: number;
  log?: (line: string) => void;
}): Promise<DrillReport> {
  const started = Date.now();
  const log = o.log ?? (() => {});
  const bin = execFileSync('scripts/ha-cluster.sh', ['bindir'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-restore-drill-'));
  chmodSync(dir, 0o755);
  const [sourcePort, restoredPort] = [await freePort(), await freePort()];
  const source = path.join(dir, 'source');
  const archive = path.join(dir, 'archive');
  const base = path.join(dir, 'base');
  const restored = path.join(dir, 'restored');
  const url = (port: number, db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const report: DrillReport = { before: 0, after: 0, checked: 0, violations: [], restoreMs: 0, elapsedMs: 0 };
  const running: string[] = [];
  const gateways: GatewayLives[] = [];
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;

  try {
    // As root, PostgreSQL runs as postgres (scripts/ha-cluster.sh bindir made the user), which owns the drill's directory.
    if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
    asPostgres(['mkdir', archive]);
    asPostgres([`${bin}/initdb`, '-D', source, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
    // The production settings that matter here: WAL kept for a restore, each segment archived once complete.
    asPostgres([
      'sh',
      '-c',
      `cat >> ${source}/postgresql.conf <<CONF
listen_addresses = '127.0.0.1'
port = ${sourcePort}
unix_socket_directories = ''
wal_level = replica
archive_mode = on
archive_command = 'test ! -f ${archive}/%f && cp %p ${archive}/%f'
max_wal_senders = 4
CONF`,
    ]);
    asPostgres([`${bin}/pg_ctl`, '-D', source, '-l', `${dir}/source.log`, '-w', 'start']);
    running.push(source);
    await query(url(sourcePort, 'postgres'), 'create database drill');

    const [gatewayPort, sandboxPort] = [await freePort(), await freePort()];
    const secret = randomBytes(24).toString('hex');
    sandbox = await startSandboxProcess({ port: sandboxPort, gatewayUrl: `http://127.0.0.1:${gatewayPort}`, secret });
    const env = (databaseUrl: string) => ({
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(gatewayPort),
      SANDBOX_URL: sandbox!.url,
      CALLBACK_SIGNING_SECRET: secret,
      RATE_LIMIT_MAX: '10000000',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'true',
      DATABASE_URL: databaseUrl,
    });
    const gateway = new GatewayLives(env(url(sourcePort, 'drill')));
    gateways.push(gateway);
    await gateway.start();

    log('restore drill: base backup (pg_basebackup)');
    asPostgres([
      `${bin}/pg_basebackup`,
      '-h',
      '127.0.0.1',
      '-p',
      String(sourcePort),
      '-U',
      'postgres',
      '-D',
      base,
      '-X',
      'stream',
      '-c',
      'fast',
    ]);

    const runId = `drill-${o.seed}-${randomBytes(3).toString('hex')}`;
    const client: ClientOptions = {
      url: () => gateway.url,
      apiKey: () => gateway.apiKey,
      runId,
      deadlineMs: 30_000,
      lastReadyAt: () => gateway.readyAt[0],
      down: () => false,
      counters: { sent: 0 },
    };
    const batch = async (from: number, count: number) => {
      const orders: Order[] = Array.from({ length: count }, (_, i) => ({
        index: from + i,
        amount: 10 + ((o.seed + from + i) % 90),
        declined: (from + i) % 5 === 4,
        refund: (from + i) % 3 === 0,
      }));
      for (let i = 0; i < orders.length; i += 4)
        await Promise.all(orders.slice(i, i + 4).map((x) => runOrder(client, x)));
      return orders;
    };
    const before = await batch(0, o.orders);
    // The point in time on the server's clock, once every call before it has been answered.
    const [{ at }] = await query<{ at: string }>(url(sourcePort, 'drill'), `select clock_timestamp()::text as at`);
    log(`restore drill: ${o.orders} orders answered before ${at}`);
    await sleep(1100);
    const after = await batch(o.orders, o.orders);
    // The segment holding the last commits is archived once complete: switch to a new one and wait for it.
    const [{ segment }] = await query<{ segment: string }>(
      url(sourcePort, 'drill'),
      'select pg_walfile_name(pg_switch_wal()) as segment',
    );
    for (let i = 0; i < 200; i++) {
      const [{ last }] = await query<{ last: string | null }>(
        url(sourcePort, 'drill'),
        'select last_archived_wal as last from pg_stat_archiver',
      );
      if (last !== null && last >= segment) break;
      await sleep(100);
    }
    await gateway.stop();
    asPostgres([`${bin}/pg_ctl`, '-D', source, '-m', 'fast', '-w', 'stop']);
    running.pop();

    log(`restore drill: restoring the base backup and archived WAL to ${at}`);
    const restoreStarted = Date.now();
    asPostgres(['cp', '-a', base, restored]);
    asPostgres(['touch', `${restored}/recovery.signal`]);
    const settings = [
      `port = ${restoredPort}`,
      `restore_command = 'cp ${archive}/%f %p'`,
      `recovery_target_time = '${at}'`,
      `recovery_target_action = 'promote'`,
      `archive_mode = off`,
    ];
    if (asRoot)
      asPostgres([
        'sh',
        '-c',
        `printf '%s\\n' ${settings.map((s) => `"${s}"`).join(' ')} >> ${restored}/postgresql.auto.conf`,
      ]);
    else appendFileSync(`${restored}/postgresql.auto.conf`, `${settings.join('\n')}\n`);
    asPostgres([`${bin}/pg_ctl`, '-D', restored, '-l', `${dir}/restored.log`, '-w', '-t', '120', 'start']);
    running.push(restored);
    for (let i = 0; ; i++) {
      const [{ recovering }] = await query<{ recovering: boolean }>(
        url(restoredPort, 'postgres'),
        'select pg_is_in_recovery() as recovering',
      ).catch(() => [{ recovering: true }]);
      if (!recovering) break;
      if (i > 600) throw new Error('the restored cluster did not finish recovery within a minute');
      await sleep(100);
    }
    report.restoreMs = Date.now() - restoreStarted;

    const restoredGateway = new GatewayLives(env(url(restoredPort, 'drill')));
    gateways.push(restoredGateway);
    await restoredGateway.start();
    const get = async (p: string) => {
      const res = await fetch(`${restoredGateway.url}${p}`, { headers: { 'x-api-key': gateway.apiKey } });
      const body: any = await res.json().catch(() => undefined);
      return { status: res.status, body };
    };

    for (const order of before) {
      const requestId = order.request?.decided?.body?.paymentRequestId;
      report.checked++;
      if (!requestId) {
        report.violations.push(`order ${order.index}: no answer before the point (the drill's own load failed)`);
        continue;
      }
      report.before++;
      const paid = order.pay?.decided;
      if (!paid?.body?.paymentId) continue;
      report.checked++;
      const stored = await get(`/payments/${paid.body.paymentId}`);
      const acknowledged = paid.status === 402 ? 'failed' : paid.body.status;
      const settledLater = acknowledged === 'pending' && ['succeeded', 'failed'].includes(stored.body?.status);
      if (stored.status !== 200 || (stored.body.status !== acknowledged && !settledLater))
        report.violations.push(
          `payment ${paid.body.paymentId}: acknowledged ${acknowledged} before the point, restored ${stored.status} ${stored.body?.status}`,
        );
      const refund = order.refundCall?.decided;
      if (refund?.status === 200 && refund.body?.status === 'succeeded') {
        report.checked++;
        if (stored.body?.amountRefunded === undefined || stored.body.amountRefunded <= 0)
          report.violations.push(
            `payment ${paid.body.paymentId}: refund acknowledged before the point, restored refunded ${stored.body?.amountRefunded}`,
          );
      }
    }
    for (const order of after) {
      const paymentId = order.pay?.decided?.body?.paymentId;
      if (!paymentId) continue;
      report.after++;
      report.checked++;
      const stored = await get(`/payments/${paymentId}`);
      if (stored.status !== 404)
        report.violations.push(`payment ${paymentId}: made after the point, yet restored (${stored.status})`);
    }
  } finally {
    for (const g of gateways) await g.stop();
    await sandbox?.stop();
    for (const data of running) {
      try {
        asPostgres([`${bin}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop']);
      } catch {
        // already stopped
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  report.elapsedMs = Date.now() - started;
  return report;
}

export function formatDrill(r: DrillReport): string {
  return [
    `restore drill: ${r.before} orders before the point, ${r.after} payments after it, restored in ${(r.restoreMs / 1000).toFixed(1)} s, ${(r.elapsedMs / 1000).toFixed(1)} s in all`,
    `  checks: ${r.checked}; violations: ${r.violations.length}`,
    ...r.violations.slice(0, 40).map((v) => `    ✗ ${v}`),
  ].join('\n');
}
