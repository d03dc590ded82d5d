import { createServer } from 'node:http';
import { percentile } from './percentile.js';

/**
 * A merchant's notification receiver that answers 204 at once, in the bench process. For each
 * `payment.succeeded` it notes when it arrived against the event's `created` (the moment the
 * payment was settled): how long after a payment its merchant hears of it.
 */
export async function startReceiver(): Promise<{
  url: string;
  /** Notifications of succeeded payments that arrived since `from` (ms since the epoch). */
  received(from: number): number;
  /** Milliseconds from each payment's settle to its notification's arrival, over the notifications that arrived in [from, to). */
  lags(from: number, to?: number): { count: number; p50: number; p99: number; max: number };
  close(): Promise<void>;
}> {
  const arrivals: Array<{ at: number; lag: number }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; created?: string };
      if (event.type === 'payment.succeeded' && event.created)
        arrivals.push({ at, lag: at - Date.parse(event.created) });
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/notifications`,
    received: (from) => arrivals.filter((arrival) => arrival.at >= from).length,
    lags: (from, to = Infinity) => {
      const lags = arrivals
        .filter((arrival) => arrival.at >= from && arrival.at < to)
        .map((arrival) => arrival.lag)
        .sort((a, b) => a - b);
      return { count: lags.length, p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags.at(-1) ?? 0 };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
