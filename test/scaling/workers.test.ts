import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildOnce, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';
import { CARDS, h2hCard } from '../payments/fixtures.js';

// `WORKERS=2 npm start`: two worker processes behind one port (Node's cluster module) on one
// PostgreSQL, which is how any number of instances run; here on the default store, the embedded
// PostgreSQL server the primary runs on DATA_DIR for its workers.
let gateway: GatewayProcess;
let apiKey: string;
let databaseUrl: string;
let dataDir: string;

async function sql<T>(query: string, url = databaseUrl): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * One request on a connection of its own: the cluster's primary hands each new connection to the
 * next worker, so a run of these reaches every worker (a kept-alive fetch would stay on one).
 */
function call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const body =
    options.body === undefined || typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = httpRequest(
      `${gateway.banner.url}${path}`,
      {
        method,
        agent: false,
        headers: {
          'x-api-key': apiKey,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The process ids that logged a request: which workers answered. */
const servingPids = () =>
  new Set(
    gateway
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { pid: number }).pid),
  );

beforeAll(async () => {
  buildOnce();
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-workers-'));
  gateway = await startGatewayProcess({ WORKERS: '2', PORT: '0', DATA_DIR: dataDir });
  apiKey = gateway.banner.demo!.apiKey;
  databaseUrl = gateway.banner.database!;
});
afterAll(async () => {
  if (gateway && gateway.child.exitCode === null) {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts two workers on one port, prints one banner and creates the demo merchant once', async () => {
  expect(gateway.stderr().match(/listening on/g)).toHaveLength(1);
  expect(gateway.stderr()).toContain('(2 workers)');
  for (let i = 0; i < 6; i++) expect((await call('GET', '/ping')).status).toBe(200);
  // A worker writes its request line after the answer has left, through an asynchronous stream.
  await vi.waitFor(() => expect(servingPids().size).toBe(2), { timeout: 5000 });
  expect(servingPids().has(gateway.child.pid!)).toBe(false);
  const [users] = await sql<{ n: number }>('select count(*)::int as n from users');
  expect(users.n).toBe(1);
});

it('replays an idempotency key on whichever worker the retry reaches, and creates one object', async () => {
  const headers = { 'idempotency-key': 'workers-replay-1' };
  const body = { amount: 12.5, currency: 'EUR', reference: 'cluster' };
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await call('POST', '/payment-requests', { body, headers }));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  expect(new Set(answers.map((a) => (JSON.parse(a.text) as { paymentRequestId: number }).paymentRequestId)).size).toBe(
    1,
  );
  const [count] = await sql<{ n: number }>(
    `select count(*)::int as n from payment_requests where reference = 'cluster'`,
  );
  expect(count.n).toBe(1);
});

it('serves the one built-in sandbox’s 3-D Secure page from every worker and settles the payment', async () => {
  const created = await call('POST', '/payment-requests', { body: { amount: 20, currency: 'EUR', reference: '3ds' } });
  const id = (JSON.parse(created.text) as { paymentRequestId: number }).paymentRequestId;
  const paid = await call('POST', `/payments/h2h/${id}`, { body: h2hCard(CARDS.challengeApprove, 20, 'EUR') });
  const payment = JSON.parse(paid.text) as { paymentId: number; status: string; redirectUrl: string };
  expect(payment.status, paid.text).toBe('requires_action');
  const acsPath = new URL(payment.redirectUrl).pathname;
  for (let i = 0; i < 4; i++) {
    const page = await call('GET', acsPath);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Approve');
  }
  const approved = await call('POST', acsPath, {
    body: 'decision=approve',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(approved.status).toBe(303);
  // The ACS result reaches /callbacks/3ds and a worker's job runner authorizes the payment.
  for (let i = 0; i < 100; i++) {
    const status = (JSON.parse((await call('GET', `/payments/${payment.paymentId}`)).text) as { status: string })
      .status;
    if (status !== 'requires_action' && status !== 'pending') {
      expect(status).toBe('succeeded');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the 3-D Secure payment never settled');
});

it('stops every worker, then the embedded server, on SIGTERM and exits 0', async () => {
  const postmasterPid = path.join(dataDir, 'postgresql', 'postmaster.pid');
  const serverPid = Number(readFileSync(postmasterPid, 'utf8').split('\n')[0]);
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited).toBe(0);
  const pids = [...servingPids()];
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  // pg_ctl's stop returns once the lock file is gone, a moment before the process itself has ended.
  await vi.waitFor(() => expect(() => process.kill(serverPid, 0)).toThrow(), { timeout: 10_000, interval: 50 });
  expect(existsSync(postmasterPid)).toBe(false);
});
