/**
 * Real Chromium for the browser tests: Debian's (installed by scripts/chromium.sh when missing), driven
 * by playwright-core, and the small loopback servers that stand for merchants' pages.
 */
import { execFileSync } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import type { TestGateway } from './gateway.js';
import { buildOnce, ROOT } from './processes.js';

/** Where the browser tests keep a screenshot of each state (not committed: .tmp/ is ignored). */
export const SCREENSHOTS = `${ROOT}/.tmp/screenshots`;

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium, with the front ends built first (the gateway serves web/dist). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync('bash', ['scripts/chromium.sh'], { cwd: ROOT, encoding: 'utf8' }).trim();
  buildOnce();
  return chromium.launch({ executablePath, args: FLAGS });
}

export { freePort } from '../../src/lib/free-port.js';

/**
 * A page server on loopback, like the shop (a page made up by the browser's request interception counts
 * as public and may not reach loopback addresses): serves `pages` by path, and records every URL asked for.
 */
export async function startPageServer(
  port: number,
  pages: Map<string, string>,
): Promise<{ origin: string; requested: string[]; server: Server }> {
  const requested: string[] = [];
  const server = createHttpServer((req, res) => {
    requested.push(req.url ?? '');
    const path = (req.url ?? '').split('?')[0];
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pages.get(path) ?? '');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${port}`, requested, server };
}

/**
 * The gateway's job runner is off in tests, and the ACS's result settles the payment through it: run it
 * while the browser goes through the bank's page and back, as a running gateway would.
 */
export async function withJobRunner<T>(gw: TestGateway, body: () => Promise<T>): Promise<T> {
  let running = true;
  const loop = (async () => {
    while (running) {
      await gw.runJobs();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    return await body();
  } finally {
    running = false;
    await loop;
  }
}
