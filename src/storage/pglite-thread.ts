import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { EmbeddedStoreFailedError, type StatementResult, type StatementRunner } from './pglite-statements.js';

/**
 * The embedded store in a worker thread of its own (EMBEDDED_STORE_WORKER): PostgreSQL's WebAssembly
 * and PGlite's parsing (about half of an embedded payment's CPU, docs/performance.md) then run beside
 * the gateway's JavaScript instead of taking turns with it on one core. The worker runs the same
 * PGliteStatements as the gateway's thread would (pglite-worker.ts): prepared statements, the trap
 * guard and durable commits are the same code; only statements, rows and notices cross, by message.
 */

export interface WorkerStart {
  /** The data directory; undefined keeps the store in memory. */
  dataPath: string | undefined;
  startParams: string[];
  durableCommits: boolean;
}

type WorkerCall =
  | { op: 'run'; sql: string; parameters: readonly unknown[]; prepared?: string }
  | { op: 'settled' | 'close' }
  | { op: 'listen' | 'unlisten'; channel: string };

export type WorkerRequest = WorkerCall & { id: number };

export type WorkerReply =
  | { id: number; ok: true; value?: unknown; inTransaction: boolean }
  | { id: number; ok: false; error: SerializedError; inTransaction: boolean }
  | { notice: { channel: string; payload: string } }
  | { started: true }
  | { startFailed: SerializedError };

/** An error's message and own fields (SQLSTATE code, severity, constraint…): what callers look at. */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean | undefined>;
}

export function serializeError(error: unknown): SerializedError {
  const { name = 'Error', message = String(error) } = (error ?? {}) as { name?: string; message?: string };
  const fields: SerializedError['fields'] = {};
  for (const [key, value] of Object.entries(error ?? {})) {
    if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value as string | number | boolean;
  }
  return { name, message, fields };
}

function revive(serialized: SerializedError): Error {
  const error =
    serialized.name === EmbeddedStoreFailedError.name
      ? new EmbeddedStoreFailedError(serialized.message)
      : new Error(serialized.message);
  return Object.assign(error, serialized.fields);
}

/**
 * The stack of the gateway's own thread (V8's default, 984 KB), not a worker's default 4 MB: PostgreSQL's
 * recursive parsers run on it (pglite-statements.ts, the trap guard), so a statement nested too deeply
 * fails in the worker as it would in the gateway's thread, where its rows would have to be read.
 */
const WORKER_STACK_MB = 1;

/**
 * From the built gateway the worker is plain JavaScript; from the sources (tests run them through
 * vitest) it is TypeScript, which the worker loads through tsx, a development dependency.
 */
function spawn(start: WorkerStart): Worker {
  const options = { workerData: start, resourceLimits: { stackSizeMb: WORKER_STACK_MB } };
  const entry = new URL(`./pglite-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  if (entry.pathname.endsWith('.js')) return new Worker(entry, options);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

export class PGliteThread implements StatementRunner {
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private nextId = 0;
  private transaction = false;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: WorkerReply) => this.receive(reply));
    // An exception the worker did not catch, or its end: nothing more can be run there.
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the embedded store's thread ended (code ${code})`)));
    worker.unref();
  }

  static async start(start: WorkerStart): Promise<PGliteThread> {
    const worker = spawn(start);
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the embedded store's thread ended (code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (reply: WorkerReply) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        if ('startFailed' in reply) reject(revive(reply.startFailed));
        else resolve();
      });
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return new PGliteThread(worker);
  }

  async run<R>(sql: string, parameters: readonly unknown[], prepared?: string): Promise<StatementResult<R>> {
    const bytes = (await this.request({ op: 'run', sql, parameters, prepared })) as Uint8Array;
    try {
      return v8.deserialize(bytes) as StatementResult<R>;
    } catch (error) {
      throw new Error(`the embedded store's answer could not be read (${(error as Error).message})`, { cause: error });
    }
  }

  inTransaction(): boolean {
    return this.transaction;
  }

  async settled(): Promise<void> {
    await this.request({ op: 'settled' });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await this.request({ op: 'close' });
    this.failure = new Error('the embedded store is closed');
    await this.worker.terminate();
  }

  /** LISTEN on the worker's PGlite; notices arrive before the answer to the statement that committed them. */
  async listen(channel: string, notice: (payload: string) => void): Promise<() => Promise<void>> {
    const callbacks = this.listeners.get(channel) ?? new Set();
    this.listeners.set(channel, callbacks);
    callbacks.add(notice);
    if (callbacks.size === 1) await this.request({ op: 'listen', channel });
    return async () => {
      callbacks.delete(notice);
      if (callbacks.size === 0 && !this.failure) await this.request({ op: 'unlisten', channel });
    };
  }

  private request(call: WorkerCall): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.nextId;
    // Referenced only while it owes an answer: an idle store does not keep the process alive.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...call, id } satisfies WorkerRequest);
    });
  }

  private receive(reply: WorkerReply): void {
    if ('notice' in reply) {
      this.listeners.get(reply.notice.channel)?.forEach((notice) => notice(reply.notice.payload));
      return;
    }
    if (!('id' in reply)) return;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    this.transaction = reply.inTransaction;
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(revive(reply.error));
  }

  private fail(error: Error): void {
    this.failure ??= new EmbeddedStoreFailedError(
      `the embedded store stopped working (${error.message}); restart the gateway`,
    );
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}
