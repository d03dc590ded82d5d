import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';

/**
 * Starts a resource once for the test file (beforeAll) and closes it after (afterAll). The handle
 * returned is usable inside tests and hooks that run after the start; it forwards to the resource.
 */
export function useStarted<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => started?.close());
  return new Proxy({} as T, {
    get(_target, property) {
      if (!started)
        throw new Error('not started yet: use the handle inside tests and hooks, not at the top of the file');
      const value = started[property as keyof T];
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}

/** What a new connection to a gateway gets: its /healthz status, or the connection's error code. */
export function knock(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    http
      .get(`${url}/healthz`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}
