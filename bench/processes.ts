import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Child processes of one bench run. Every child is registered here and killed by its pid when
 * the bench exits, fails or is interrupted, so a crashed run leaves nothing listening.
 */
const children = new Set<ChildProcess>();

function killAll(signal: NodeJS.Signals): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

/** Undo steps (temporary directories, the bench database) that must also run when interrupted. */
const cleanups = new Set<() => Promise<void>>();

/** Registers `cleanup` until the returned function runs it (once), on the normal path. */
export function onInterrupt(cleanup: () => Promise<void>): () => Promise<void> {
  cleanups.add(cleanup);
  return async () => {
    if (cleanups.delete(cleanup)) await cleanup();
  };
}

process.on('exit', () => killAll('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll('SIGKILL');
    const pending = [...cleanups].map((cleanup) => cleanup().catch(() => {}));
    const timer = setTimeout(() => process.exit(130), 5000);
    void Promise.all(pending).then(() => {
      clearTimeout(timer);
      process.exit(130);
    });
  });
}

export interface Child {
  process: ChildProcess;
  /** The last lines the child wrote on stderr, for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** A node script of ours as a child: `args` are node's (flags, then the script). */
export function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  return startProcess(name, process.execPath, args, env);
}

/** What every child gets from the bench's environment; the rest of a child's environment is explicit. */
export const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir() });

/**
 * The gateway as `npm start` runs it (scripts/gateway.sh: its memory settings, then node on
 * dist/src/main.js, by exec, so the pid is node's); `nodeArgs` are extra node flags. The script's
 * malloc setting, when set for the bench, reaches it, so a run can compare it with other values
 * (e.g. `MALLOC_MMAP_THRESHOLD_=131072 npm run bench`).
 */
export function spawnGateway(nodeArgs: string[], env: NodeJS.ProcessEnv): Child {
  const settings: NodeJS.ProcessEnv = {};
  for (const name of GATEWAY_SETTINGS) if (process.env[name] !== undefined) settings[name] = process.env[name];
  return startProcess('gateway', 'bash', [GATEWAY_SCRIPT, ...nodeArgs], {
    ...settings,
    ...env,
    NODE: process.execPath,
  });
}

const GATEWAY_SCRIPT = fileURLToPath(new URL('../../scripts/gateway.sh', import.meta.url));
const GATEWAY_SETTINGS = ['MALLOC_MMAP_THRESHOLD_'];

function startProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let tail = '';
  let stopping = false;
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal === null && !stopping)
      process.stderr.write(`bench: ${name} exited with code ${code}\n${tail}\n`);
  });
  return {
    process: child,
    output: () => tail,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a node script to completion and returns its stdout; rejects with its stderr on failure. */
export function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => {
      children.delete(child);
      if (code === 0) resolve(stdout);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

export { freePort } from '../src/lib/free-port.js';

/** Polls `url` until it answers 200, the child dies, or `timeoutMs` passes. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`process exited before it was ready:\n${child.output()}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.output()}`);
}
