import { randomUUID } from 'node:crypto';
import { retryAfterOf } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 2: three attempts in all). 0 turns retrying off. */
  maxRetries: number;
  /** The first back-off, doubled on each retry (default 500 ms). */
  baseDelayMs: number;
  /** The longest back-off (default 8 s). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer is reported instead (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** The header the SDK sends its key in; the gateway also reads X-Idempotency-Key (both must then agree). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * The fetch every call of the client goes through:
 *
 * - every POST carries an idempotency key, the caller's or a random UUID made once for the call, so
 *   that a retry is the same request to the gateway: it answers the stored outcome, never a second charge;
 * - a connection error, a 429, a 5xx or a 409 with Retry-After (the same key still running) is retried
 *   up to `maxRetries` times, re-sending the same bytes and the same key;
 * - the wait is the answer's Retry-After when it gives one, else an exponential back-off with jitter
 *   (half the delay fixed, half random), so that many clients failing at once do not return at once.
 */
export function retryingFetch(
  policy: RetryPolicy,
  baseFetch: (request: Request) => Promise<Response> = (request) => globalThis.fetch(request),
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = delay,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (
      request.method === 'POST' &&
      !request.headers.has('idempotency-key') &&
      !request.headers.has('x-idempotency-key')
    )
      request.headers.set(IDEMPOTENCY_HEADER, randomUUID());
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await baseFetch(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoff(policy, attempt), request.signal);
        continue;
      }
      if (last || !retryable(response)) return response;
      const retryAfter = retryAfterOf(response.headers);
      if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) return response;
      // The answer is dropped: its body is read (and discarded) so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      await sleep(retryAfter ?? backoff(policy, attempt), request.signal);
    }
  };
}

function retryable(response: Response): boolean {
  if (response.status === 429 || response.status >= 500) return true;
  // The same key is still running elsewhere (IDEMPOTENCY_KEY_IN_USE): its outcome is worth waiting for.
  return response.status === 409 && response.headers.has('retry-after');
}

/** Exponential back-off with jitter: between half and all of base·2^attempt, at most maxDelayMs. */
export function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
