import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Pool } from 'undici';
import type { LoadResult } from './load.js';
import { percentile } from './percentile.js';
import { baseEnv, startChild, type Child } from './processes.js';
import { REQUEST_AMOUNT, REQUEST_CURRENCY } from './supply.js';

/**
 * The Stripe connector's figures: the contract simulator as a child process (bench/stripe-simulator.ts),
 * a merchant's Stripe connection on the h2h slot pointing at it (the gateway's STRIPE_API_BASE), and the
 * simulator's own rate for the same three calls the connector makes, without the gateway.
 */

/** The simulator's default credentials (simulators/README.md). */
const SECRET_KEY = 'sk_test_simulator';
const WEBHOOK_SECRET = 'whsec_simulator';

export async function startStripeSimulatorChild(dist: string, port: number): Promise<{ url: string; child: Child }> {
  const child = startChild('stripe simulator', [path.join(dist, 'bench/stripe-simulator.js')], {
    ...baseEnv(),
    STRIPE_SIMULATOR_PORT: String(port),
  });
  // Any request outside Stripe's document would count as a violation: the child's own line says it is up.
  const deadline = Date.now() + 60_000;
  while (!child.output().includes('listening on')) {
    if (child.process.exitCode !== null || Date.now() > deadline)
      throw new Error(`the Stripe simulator did not start:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}`, child };
}

async function gatewayCall(gatewayUrl: string, apiKey: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${gatewayUrl}${route}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Connects the simulator as the merchant's Stripe account for h2h payments; returns the connection's id. */
export async function connectStripe(gatewayUrl: string, apiKey: string): Promise<string> {
  const created = await gatewayCall(gatewayUrl, apiKey, 'POST', '/processor-connections', {
    processor: 'stripe',
    name: 'Stripe simulator (bench)',
    credentials: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET },
    slots: ['h2h'],
    priority: 10,
  });
  return created.connectionId as string;
}

export async function disconnectStripe(gatewayUrl: string, apiKey: string, connectionId: string): Promise<void> {
  await gatewayCall(gatewayUrl, apiKey, 'DELETE', `/processor-connections/${connectionId}`);
}

const form = (fields: Record<string, string | number>) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');

/**
 * The simulator alone: `connections` clients in a closed loop, each making the connector's three calls
 * for one approved card (PaymentMethod, PaymentIntent, confirmation), with idempotency keys as the
 * connector sends them. One "request" of the result is the three calls; its latency is theirs together.
 */
export async function rawSimulatorLoad(options: {
  url: string;
  connections: number;
  durationSeconds: number;
}): Promise<LoadResult> {
  const pool = new Pool(options.url, { connections: options.connections, pipelining: 1 });
  const headers = {
    authorization: `Bearer ${SECRET_KEY}`,
    'content-type': 'application/x-www-form-urlencoded',
  };
  const run = randomBytes(4).toString('hex');
  const post = async (route: string, body: string, key: string) => {
    const res = await pool.request({
      method: 'POST',
      path: route,
      headers: { ...headers, 'idempotency-key': key },
      body,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${route} answered ${res.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as { id: string; status?: string };
  };
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const started = process.hrtime.bigint();
  const end = Date.now() + options.durationSeconds * 1000;
  const client = async () => {
    while (Date.now() < end) {
      const reference = `pay_bench_${run}_${n++}`;
      const begin = process.hrtime.bigint();
      try {
        const method = await post(
          '/v1/payment_methods',
          form({
            type: 'card',
            'card[number]': '4242424242424242',
            'card[exp_month]': 12,
            'card[exp_year]': 2034,
            'card[cvc]': '123',
            'billing_details[name]': 'Bench Payer',
            'metadata[payment_id]': reference,
          }),
          `${reference}-pm`,
        );
        const intent = await post(
          '/v1/payment_intents',
          form({
            amount: Math.round(REQUEST_AMOUNT * 100),
            currency: REQUEST_CURRENCY.toLowerCase(),
            payment_method: method.id,
            capture_method: 'automatic',
            description: reference,
            'metadata[payment_id]': reference,
          }),
          `${reference}-pi`,
        );
        const confirmed = await post(
          `/v1/payment_intents/${intent.id}/confirm`,
          form({ return_url: 'http://127.0.0.1/return' }),
          `${reference}-confirm`,
        );
        if (confirmed.status !== 'succeeded') throw new Error(`confirmed ${confirmed.status}`);
        latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, client));
  } finally {
    await pool.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    perSecond: latencies.length / seconds,
    p50: round(percentile(latencies, 0.5)),
    p99: round(percentile(latencies, 0.99)),
    mean: (options.connections * seconds * 1000) / Math.max(1, latencies.length + errors),
    ok: latencies.length,
    errors,
    seconds,
    exhausted: false,
  };
}
