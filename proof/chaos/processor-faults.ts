import { startStripeSimulator, type Fault, type StripeSimulator } from '../../simulators/stripe/index.js';
import type { Charge, Verdict } from './checks.js';
import type { Order } from './clients.js';

/**
 * The "processor faults" scenario's processors: the demo merchant's h2h slot served by a Stripe
 * connection (the contract simulator, in this process, the gateway's STRIPE_API_BASE) at the higher
 * priority and the built-in sandbox behind it. Mid-load Stripe stops answering in time, or answers
 * 503 or 429, for a number of requests (some after acting on them), then answers again; the
 * connection's circuit must open, the payments go on through the sandbox, and nothing may be charged
 * twice across the two.
 */

/**
 * What Stripe does to each request of an episode: hold it past the gateway's time-out or answer 503,
 * having acted on it (the charge is made, the answer lost) or not; or refuse it with 429 (never acted on).
 */
export type ProcessorFault = 'hang after acting' | '503 after acting' | '429' | 'hang' | '503';
export const PROCESSOR_FAULTS: ProcessorFault[] = ['hang after acting', '503 after acting', '429', 'hang', '503'];

const faultOf = (fault: ProcessorFault): Fault => {
  const processed = fault.endsWith('after acting');
  return fault.startsWith('hang') ? { hang: true, processed } : { status: Number(fault.slice(0, 3)), processed };
};

/** Unavailable answers in a row that open a circuit, and its cool-down: small, so episodes are short. */
const CIRCUIT_FAILURES = 3;
const COOLDOWN_SECONDS = 1;

export interface FaultEpisode {
  fault: ProcessorFault;
  /** Stripe requests that meet the fault (once the circuit is open only its probes reach Stripe). */
  requests: number;
  injectedAt: number;
  /** When GET /processor-connections first showed the Stripe connection's circuit open. */
  openAt?: number;
  /** When it showed the connection healthy again after that. */
  recoveredAt?: number;
  /** Each change of the health shown, with its time from the injection (ms). */
  healthSeen: string[];
}

interface Connection {
  connectionId: string;
  processor: string;
  health: 'ok' | 'degraded' | 'open';
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

export async function startProcessorFaults() {
  const stripe: StripeSimulator = await startStripeSimulator({ host: '127.0.0.1' });
  const episodes: FaultEpisode[] = [];
  let stripeConnectionId = '';
  let gateway: { url: string; apiKey: () => string } | undefined;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gateway!.url}${path}`, {
      method,
      headers: {
        'x-api-key': gateway!.apiKey(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = await res.json().catch(() => undefined);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  const stripeHealth = async (): Promise<Connection['health'] | undefined> => {
    try {
      const list = (await call('GET', '/processor-connections')) as { data: Connection[] };
      return list.data.find((c) => c.connectionId === stripeConnectionId)?.health;
    } catch {
      return undefined; // a busy gateway: asked again
    }
  };

  /**
   * Polls the Stripe connection's health until `wanted` or the time limit: when it was seen, or
   * undefined. Every change seen is noted in the episode.
   */
  const until = async (episode: FaultEpisode, wanted: Connection['health'], withinMs: number) => {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const health = await stripeHealth();
      const last = episode.healthSeen[episode.healthSeen.length - 1]?.split('@')[0];
      if (health && health !== last) episode.healthSeen.push(`${health}@${Date.now() - episode.injectedAt}`);
      if (health === wanted) return Date.now();
      await sleep(50);
    }
    return undefined;
  };

  return {
    stripe,
    /** The gateway's settings for this scenario. */
    env: {
      STRIPE_API_BASE: stripe.url,
      PROCESSOR_CIRCUIT_FAILURES: String(CIRCUIT_FAILURES),
      PROCESSOR_CIRCUIT_COOLDOWN_SECONDS: String(COOLDOWN_SECONDS),
    },
    episodes,

    /** Connects Stripe (priority 10) and the sandbox (priority 0) to the h2h slot with the merchant's test key. */
    async connect(target: { url: string; apiKey: () => string }): Promise<void> {
      gateway = target;
      const created = (await call('POST', '/processor-connections', {
        processor: 'stripe',
        name: 'Stripe (simulator)',
        credentials: { secretKey: stripe.apiKey, webhookSecret: stripe.webhookSecret },
        slots: ['h2h'],
        priority: 10,
      })) as Connection;
      stripeConnectionId = created.connectionId;
      await call('POST', '/processor-connections', {
        processor: 'sandbox',
        name: 'Sandbox (fallback)',
        slots: ['h2h'],
        priority: 0,
      });
    },

    /**
     * One episode: the next `requests` Stripe requests meet the fault, whichever call they are (payment
     * method, PaymentIntent, confirmation, status read, cancel, refund); then Stripe answers again.
     * Resolves once the connection is healthy again (or after a minute without).
     */
    async episode(fault: ProcessorFault, requests: number): Promise<FaultEpisode> {
      const episode: FaultEpisode = { fault, requests, injectedAt: Date.now(), healthSeen: [] };
      episodes.push(episode);
      stripe.next(faultOf(fault), requests);
      episode.openAt = await until(episode, 'open', 20_000);
      if (episode.openAt) episode.recoveredAt = await until(episode, 'ok', 60_000);
      return episode;
    },

    /** Our reference at both processors: the Stripe simulator's ledger and the sandbox's. */
    chargesOf: async (reference: string, sandboxUrl: string): Promise<Charge[]> => {
      const charges: Charge[] = stripe
        .ledger()
        .filter((entry) => entry.reference === reference)
        .map((entry) => ({ processor: 'stripe', amountCaptured: entry.captured, amountRefunded: entry.refunded }));
      const res = await fetch(`${sandboxUrl}/acme/v1/payments?reference=${encodeURIComponent(reference)}`);
      if (res.status === 200) {
        const found = (await res.json()) as { amountCaptured: number; amountRefunded: number };
        charges.push({ processor: 'sandbox', ...found });
      } else await res.arrayBuffer();
      return charges;
    },

    /**
     * Per episode: the circuit opened, the payments went on through the sandbox while it was open,
     * and the connection recovered; after the episodes, Stripe was paid through again. Stripe's
     * contract was kept by every exchange.
     */
    check(orders: Order[], verdict: Verdict): void {
      const paid = orders
        .map((order) => order.pay?.decided)
        .filter((answer) => answer?.status === 200 && answer.body?.status === 'succeeded')
        .map((answer) => ({ at: answer!.at, processor: answer!.body.processor as string }));
      for (const [i, e] of episodes.entries()) {
        const name = `episode ${i + 1} (${e.fault} × ${e.requests})`;
        verdict.checked += 3;
        if (!e.openAt) {
          verdict.violations.push(`${name}: the Stripe connection's circuit was never seen open`);
          continue;
        }
        const end = e.recoveredAt ?? Number.MAX_SAFE_INTEGER;
        if (!paid.some((p) => p.at >= e.injectedAt && p.at <= end && p.processor !== 'stripe'))
          verdict.violations.push(`${name}: no payment succeeded through the second connection during the fault`);
        if (!e.recoveredAt) verdict.violations.push(`${name}: the Stripe connection was not seen healthy again`);
      }
      const last = episodes[episodes.length - 1]?.recoveredAt;
      verdict.checked += 2;
      if (last !== undefined && !paid.some((p) => p.at > last && p.processor === 'stripe'))
        verdict.violations.push('no payment went through Stripe after it recovered');
      for (const violation of stripe.violations)
        verdict.violations.push(
          `Stripe contract: ${violation.direction} ${violation.operation}: ${violation.errors.join('; ')}`,
        );
    },

    close: () => stripe.close(),
  };
}

export type ProcessorFaults = Awaited<ReturnType<typeof startProcessorFaults>>;

export function formatEpisodes(episodes: FaultEpisode[]): string[] {
  return episodes.map(
    (e, i) =>
      `  episode ${i + 1}: ${e.fault} × ${e.requests} Stripe requests; circuit open after ${e.openAt ? `${e.openAt - e.injectedAt} ms` : '—(never seen)'}, healthy again after ${e.recoveredAt ? `${e.recoveredAt - e.injectedAt} ms` : '—(never seen)'} (health seen: ${e.healthSeen.join(' ')})`,
  );
}
