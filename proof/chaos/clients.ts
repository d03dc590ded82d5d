import { PAYER } from '../fuzz/world.js';

/**
 * Merchant clients as a careful integration writes them: every POST carries an idempotency key
 * and is retried with the same key, body and path until it gets a definite answer.
 */

/** Distinctive card data, so the scan after the run cannot match ids or amounts by chance. */
export const PAYING_CARD = '5555555555554444';
export const DECLINED_CARD = '4000000000000002';
export const CVV = '739';

export interface Answer {
  status: number;
  body: any;
  at: number;
}

/** One idempotent call and every answer it got, first to last. */
export interface Exchange {
  key: string;
  answers: Answer[];
  /** Network errors and time-outs (the process died under it, or the connection was dropped). */
  errors: number;
  lastError?: string;
  startedAt: number;
  decided?: Answer;
  /** A replay sent after the decision, which must equal it. */
  replay?: Answer;
}

export interface Order {
  index: number;
  amount: number;
  declined: boolean;
  refund: boolean;
  request?: Exchange;
  pay?: Exchange;
  refundCall?: Exchange;
  /** A second refund of the full amount, which must be refused once the first succeeded. */
  overRefund?: Exchange;
}

/** 200 and 402 are decisions; any other 4xx but 409 and 429 is a definite refusal; the rest is "try again". */
export const isDefinite = (status: number) =>
  status === 200 || status === 402 || (status >= 400 && status < 500 && status !== 409 && status !== 429);

export interface ClientOptions {
  url: () => string;
  apiKey: () => string;
  runId: string;
  /** Give up on a call this long after it started, or after the gateway was last back, without a definite answer (a violation). */
  deadlineMs: number;
  /** When the gateway was last ready, and whether it is down now (a restart's own time does not count). */
  lastReadyAt: () => number;
  down: () => boolean;
  /** Headers for the payment call (the processor-hang test control). */
  payHeaders?: Record<string, string>;
  /** Where the notifications of each order's payments and refunds go (its payment request's notifyUrl). */
  notifyUrl?: string;
  /**
   * Pay host-to-host (`/payments/h2h/:id`, routed by the merchant's h2h connections) instead of by
   * card through acme.
   */
  hostToHost?: boolean;
  counters: { sent: number };
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

async function idempotent(
  options: ClientOptions,
  key: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Exchange> {
  const exchange: Exchange = { key, answers: [], errors: 0, startedAt: Date.now() };
  const attempt = async (): Promise<Answer | undefined> => {
    options.counters.sent++;
    try {
      const res = await fetch(`${options.url()}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': options.apiKey(),
          'x-idempotency-key': key,
          ...headers,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // kept as text
      }
      const answer = { status: res.status, body: parsed, at: Date.now() };
      exchange.answers.push(answer);
      return answer;
    } catch (error) {
      exchange.errors++;
      exchange.lastError =
        `${(error as Error).message} ${((error as Error).cause as Error | undefined)?.message ?? ''}`.trim();
      return undefined;
    }
  };
  let delay = 100;
  const inTime = () =>
    options.down() || Date.now() - Math.max(exchange.startedAt, options.lastReadyAt()) < options.deadlineMs;
  while (inTime()) {
    const answer = await attempt();
    if (answer && isDefinite(answer.status)) {
      exchange.decided = answer;
      exchange.replay = await attempt();
      return exchange;
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 1000);
  }
  return exchange;
}

/** Creates a payment request, pays it by card, and for some refunds part of it and then tries to over-refund. */
export async function runOrder(options: ClientOptions, order: Order): Promise<void> {
  const prefix = `chaos-${options.runId}-${order.index}`;
  order.request = await idempotent(options, `${prefix}-request`, '/payment-requests', {
    amount: order.amount,
    currency: 'EUR',
    reference: prefix,
    ...(options.notifyUrl ? { notifyUrl: options.notifyUrl } : {}),
  });
  const requestId = order.request.decided?.body?.paymentRequestId;
  if (!requestId) return;
  const card = { ...PAYER, number: order.declined ? DECLINED_CARD : PAYING_CARD, expiration: '12/30', cvv: CVV };
  order.pay = options.hostToHost
    ? await idempotent(options, `${prefix}-pay`, `/payments/h2h/${requestId}`, {
        ...card,
        amount: order.amount,
        unit: 'EUR',
      })
    : await idempotent(options, `${prefix}-pay`, `/payments/creditCard/acme/${requestId}`, card, options.payHeaders);
  const paid =
    order.pay.decided?.status === 200 && order.pay.decided.body.status === 'succeeded'
      ? order.pay.decided.body
      : undefined;
  if (!paid || !order.refund) return;
  const part = Math.round(order.amount * 50) / 100;
  order.refundCall = await idempotent(options, `${prefix}-refund`, `/payments/${paid.paymentId}/refunds`, {
    amount: part,
  });
  order.overRefund = await idempotent(options, `${prefix}-refund-all`, `/payments/${paid.paymentId}/refunds`, {
    amount: order.amount,
  });
}
