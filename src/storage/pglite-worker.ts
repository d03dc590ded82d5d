import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGliteStatements } from './pglite-statements.js';
import { serializeError, type WorkerReply, type WorkerRequest, type WorkerStart } from './pglite-thread.js';

/** The embedded store's own thread (pglite-thread.ts starts it): one PGlite, its statements run in order of arrival. */
const port = parentPort!;
const post = (reply: WorkerReply) => port.postMessage(reply);
const start = workerData as WorkerStart;

async function serve(): Promise<void> {
  const pglite = new PGlite(start.dataPath, { startParams: start.startParams });
  await pglite.waitReady;
  const runner = new PGliteStatements(pglite, { durableCommits: start.durableCommits });
  const unlisten = new Map<string, () => Promise<void>>();

  const handle = async (request: WorkerRequest): Promise<unknown> => {
    switch (request.op) {
      case 'run':
        return asBytes(await runner.run(request.sql, request.parameters, request.prepared));
      case 'settled':
        return runner.settled();
      case 'listen':
        unlisten.set(
          request.channel,
          await pglite.listen(request.channel, (payload) => post({ notice: { channel: request.channel, payload } })),
        );
        return;
      case 'unlisten':
        await unlisten.get(request.channel)?.();
        unlisten.delete(request.channel);
        return;
      case 'close':
        return runner.close();
    }
  };

  port.on('message', (request: WorkerRequest) => {
    handle(request).then(
      (value) => post({ id: request.id, ok: true, value, inTransaction: inTransaction(pglite) }),
      (error: unknown) =>
        post({ id: request.id, ok: false, error: serializeError(error), inTransaction: inTransaction(pglite) }),
    );
  });
  post({ started: true });
}

/**
 * Rows cross as bytes the gateway's thread decodes itself (pglite-thread.ts): a value too deeply nested
 * for a thread's stack (JSON stored by hand, deeper than any body the API accepts) then fails its own
 * statement with an error, where the message port would drop the whole message.
 */
function asBytes(result: unknown): Uint8Array {
  try {
    return v8.serialize(result);
  } catch (error) {
    throw new Error(`the embedded store's answer could not be passed to the gateway (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/** After close (or a failure that closed it) PGlite refuses even this question. */
function inTransaction(pglite: PGlite): boolean {
  try {
    return pglite.isInTransaction();
  } catch {
    return false;
  }
}

serve().catch((error: unknown) => post({ startFailed: serializeError(error) }));
