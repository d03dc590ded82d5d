import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** What a local server does with one request: answer it, or drop the connection without an answer. */
export type Handler = (
  request: Seen,
  answer: (status: number, headers: Record<string, string>, body: string) => void,
  drop: () => void,
) => void | Promise<void>;

/** A loopback HTTP server that records every request and leaves the answer to `handler`. */
export async function startLocalServer(handler: Handler): Promise<LocalServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      const answer = (status: number, headers: Record<string, string>, body: string) => {
        res.writeHead(status, headers);
        res.end(body);
      };
      Promise.resolve(handler(request, answer, () => req.socket.destroy())).catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Forwarded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends a recorded request on to `target` as it came, and returns the target's answer. */
export async function forward(target: string, request: Seen): Promise<Forwarded> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
  const response = await fetch(`${target}${request.path}`, {
    method: request.method,
    headers,
    body: ['GET', 'HEAD'].includes(request.method) ? undefined : request.body,
  });
  const answerHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!['content-length', 'content-encoding', 'connection', 'keep-alive', 'transfer-encoding'].includes(name))
      answerHeaders[name] = value;
  });
  return { status: response.status, headers: answerHeaders, body: await response.text() };
}
