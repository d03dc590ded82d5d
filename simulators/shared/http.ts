import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ListenOptions {
  /** 0 = random (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** PEM key and certificate: serve HTTPS (the Adyen SDK speaks nothing else). */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => Promise<void>;

/** A plain node:http(s) server: a simulator needs the raw request (bytes as sent) and the socket (to reset it). */
export async function listen(options: ListenOptions, handler: Handler): Promise<Listening> {
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handler(request, response, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'text/plain' });
          response.end(`simulator bug: ${error instanceof Error ? error.stack : String(error)}`);
        }
      });
    });
  };
  const server = options.tls ? createHttpsServer(options.tls, serve) : createHttpServer(serve);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Held (hanging) answers and idle keep-alive sockets end now.
        server.closeAllConnections();
      })),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function sendHtml(response: ServerResponse, status: number, html: string) {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  response.end(html);
}

export function redirect(response: ServerResponse, location: string) {
  response.writeHead(303, { location, 'content-length': 0 });
  response.end();
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
