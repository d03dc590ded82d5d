import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenEnvFor } from './database.js';

/** The project root: spawned commands run exactly as a user would run them there. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every setting src/config.ts reads: removed from the inherited environment so a test states its own. */
const CONFIG_VARS = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'PUBLIC_URL',
  'CHECKOUT_URL',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'JWT_SECRET',
  'CALLBACK_SIGNING_SECRET',
  'LOG_LEVEL',
  'TRUSTED_PROXIES',
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_WINDOW_SECONDS',
  'SIGNIN_RATE_LIMIT_MAX',
  'REDIS_URL',
  'SEED_DEMO',
  'WORKERS',
  'DATABASE_LISTEN_URL',
  'DATABASE_PREPARED_STATEMENTS',
  'DATABASE_GROUP_COMMIT',
  'METRICS_TOKEN',
  'JOB_RETENTION_DAYS',
];

export function processEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARS) delete out[name];
  return { ...out, ...env };
}

/**
 * Builds what is stale (scripts/build-if-stale.sh, as `npm start` does), serialized across test files
 * with flock: two files compiling into dist/ at the same time could let one spawn a half-written file.
 * A current build writes nothing — a full `npm run build` would empty web/dist while another file's
 * browser is loading the checkout from it.
 */
export function buildOnce(): void {
  const lock = path.join(
    tmpdir(),
    `svc-gateway-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`,
  );
  execFileSync('flock', [lock, 'bash', 'scripts/build-if-stale.sh'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its output. */
export function run(command: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: processEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm run --silent gateway -- <args>`: the operator CLI, exactly as the README says to call it. */
export const gatewayCli = (args: string[], env: Record<string, string>) =>
  run('npm', ['run', '--silent', 'gateway', '--', ...args], env);

export interface Banner {
  url: string;
  /** The embedded PostgreSQL server's URL, when the gateway runs one (no DATABASE_URL). */
  database?: string;
  demo?: { email: string; password: string; userId: number; apiKey: string };
}

export interface GatewayProcess {
  child: ChildProcess;
  banner: Banner;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Resolves once stdout (the log) contains the text. */
  waitForLog(text: string): Promise<void>;
}

/**
 * Starts the gateway as `npm start` does after building (scripts/gateway.sh, which execs node on
 * dist/src/main.js with its memory setting, this test process's node) and parses its start-up banner.
 */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn('bash', ['scripts/gateway.sh'], {
    cwd: ROOT,
    // Behind the suite's PgBouncer, configured as production would be: LISTEN (and, with it, prepared
    // statements off) on the server itself.
    env: processEnv({ ...listenEnvFor(env.DATABASE_URL), NODE: process.execPath, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (ready: () => boolean, what: string) => {
    while (!ready()) {
      if (ended) throw new Error(`gateway exited while waiting for ${what}\nstderr:\n${stderr}\nstdout:\n${stdout}`);
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };

  // The banner is complete once the line after the last one it prints has arrived.
  await until(
    () =>
      /listening on \S+/.test(stderr) &&
      /API reference: .*\n/.test(stderr) &&
      (!stderr.includes('Demo merchant') || /Try: .*\n/.test(stderr)),
    'the banner',
  );
  const url = /listening on (\S+)/.exec(stderr)![1];
  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(stderr)?.[1];
  const demo = stderr.includes('Demo merchant')
    ? {
        email: field('e-mail')!,
        password: field('password')!,
        userId: Number(field('user id')),
        apiKey: field('API key')!,
      }
    : undefined;
  const database = /Embedded PostgreSQL .*\n\s+(postgres:\/\/\S+)/.exec(stderr)?.[1];
  return {
    child,
    banner: { url, database, demo },
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForLog: (text) => until(() => stdout.includes(text), `log text "${text}"`),
  };
}
