import { useStarted } from '../helpers/lifecycle.js';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server.js';

export const SECRET = 'sandbox-test-callback-secret-0123456789';

/** One callback as the stand-in gateway received it. */
export interface Received {
  path: string;
  body: any;
  raw: string;
  signature: string;
  signatureValid: boolean;
}

/**
 * Stand-in for the gateway's callback endpoints: records every request, checks its signature
 * independently of the sandbox's code, answers 200 (or the statuses queued with `failNext`).
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly failures: number[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const signature = String(req.headers['x-webhook-signature'] ?? '');
        const expected = createHmac('sha512', SECRET).update(raw).digest('hex');
        const text = raw.toString('utf8');
        this.received.push({
          path: req.url ?? '',
          body: text ? JSON.parse(text) : undefined,
          raw: text,
          signature,
          signatureValid: signature === expected,
        });
        res.statusCode = this.failures.shift() ?? 200;
        res.end(res.statusCode === 200 ? '{"received":true}' : '{"error":"try later"}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  /** The next callbacks get these HTTP statuses instead of 200. */
  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  for(transactionId: string): Received[] {
    return this.received.filter((r) => r.body?.transactionId === transactionId);
  }

  /** Waits (polling) until `count` callbacks for the transaction have arrived. */
  async waitFor(transactionId: string, count = 1, timeoutMs = 5000): Promise<Received[]> {
    await until(() => this.for(transactionId).length >= count, timeoutMs);
    return this.for(transactionId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `condition` every 10 ms; fails after `timeoutMs` (the sandbox's own clock runs in real time). */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Harness {
  sandbox: Sandbox;
  receiver: Receiver;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHarness(options: Partial<SandboxOptions> = {}): Promise<Harness> {
  const receiver = new Receiver();
  await receiver.start();
  const sandbox = await startSandbox({ gatewayUrl: receiver.url, callbackSecret: SECRET, ...options });
  return {
    sandbox,
    receiver,
    async call(method, path, body, headers = {}) {
      const response = await fetch(`${sandbox.url}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    },
    async close() {
      await sandbox.close();
      await receiver.close();
    },
  };
}

let counter = 0;
/** A reference the gateway would send (its payment id); unique per call. */
export function reference(prefix = 'pay'): string {
  counter += 1;
  return `${prefix}_${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
}

export function cardRequest(number: string, overrides: Record<string, unknown> = {}) {
  return {
    reference: reference(),
    amount: 1050,
    currency: 'EUR',
    capture: true,
    card: {
      number,
      expMonth: 12,
      expYear: new Date().getUTCFullYear() + 3,
      cvv: number.startsWith('37') ? '1234' : '123',
      holder: 'Jane Doe',
    },
    ...overrides,
  };
}

/** The one setup of a sandbox test file: a harness started before its tests and closed after them. */
export function useHarness(options: Partial<SandboxOptions> = {}): Harness {
  return useStarted(() => startHarness(options));
}
