import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands between a simulator and the gateway's receiver: passes each webhook on, bytes and headers as
 * sent, and hands the receiver's answer back to the simulator. Held, it keeps deliveries until
 * released, so a test can make a webhook arrive after the API answer it would otherwise race.
 */
export async function startWebhookGate() {
  let target = '';
  let held: Promise<void> | undefined;
  let release = () => {};
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        await held;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name))
            headers[name] = value;
        const answer = await fetch(target, { method: 'POST', headers, body: Buffer.concat(chunks) });
        const text = await answer.text();
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        response.end(text);
      })().catch((error: unknown) => {
        response.writeHead(599);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    /** Where deliveries go: the gateway's receiver. */
    forwardTo: (url: string) => (target = url),
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => {
      held = undefined;
      release();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
