import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (signatures are over these bytes). */
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Never answer (the time-out test). */
  hang?: boolean;
  /** Answer after this long (widens races between instances). */
  delayMs?: number;
}

/**
 * A merchant's notification receiver on loopback: records every request and answers from a script
 * (`answers`, consumed in order, then `fallback`).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const answers: Answer[] = [];
  let fallback: Answer = { status: 200 };
  // Requests received and not answered yet, and the most there were at once.
  let open = 0;
  let mostAtOnce = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      mostAtOnce = Math.max(mostAtOnce, ++open);
      const answer = answers.shift() ?? fallback;
      if (answer.hang) return;
      setTimeout(() => {
        open--;
        res.writeHead(answer.status, answer.headers).end('ok');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answers,
    setFallback: (answer: Answer) => (fallback = answer),
    /** The most requests it held unanswered at once. */
    mostAtOnce: () => mostAtOnce,
    /** The requests to one path, in arrival order. */
    at: (path: string) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
