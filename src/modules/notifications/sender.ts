import { Agent, request } from 'undici';
import type { ErrorName } from '../../errors.js';
import { ENDPOINT_PLACES } from './endpoint-places.js';
import { guardedLookup } from './target-guard.js';

/**
 * A delivery's endpoint: its URL's origin, which the HTTP client keeps a connection pool per (so
 * `https://A.example:443/x` and `https://a.example/y` are one). Stored with each delivery.
 */
export const endpointOf = (url: string): string => (URL.canParse(url) ? new URL(url).origin : url);

export interface SendResult {
  statusCode: number | null;
  retryAfter: string | string[] | undefined;
  durationMs: number;
  error: { error: ErrorName; message: string } | null;
}

/**
 * The HTTP client of notifications: undici with the SSRF guard as its DNS lookup (unless private targets
 * are allowed), a whole-attempt time-out, no redirects followed (undici's request never follows them),
 * and a bounded pool per origin (as many connections as an endpoint may have places) so one slow
 * receiver cannot take every connection.
 */
export function createSender(options: { allowPrivateTargets: boolean; timeoutMs: number }) {
  const agent = new Agent({
    connections: ENDPOINT_PLACES.MOST,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.timeoutMs, ...(options.allowPrivateTargets ? {} : { lookup: guardedLookup }) },
  });

  async function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'svc-gateway-webhooks/2.1' },
        body,
        dispatcher: agent,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      // The answer's body is not used; reading it frees the connection.
      await response.body.dump({ limit: 64 * 1024 });
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        retryAfter: response.headers['retry-after'],
        durationMs: elapsed(),
        error: ok
          ? null
          : { error: 'WEBHOOK_DELIVERY_FAILED', message: `the receiver answered ${response.statusCode}` },
      };
    } catch (error) {
      return {
        statusCode: null,
        retryAfter: undefined,
        durationMs: elapsed(),
        error: describe(error, options.timeoutMs),
      };
    }
  }

  return { send, close: () => agent.close() };
}

export type Sender = ReturnType<typeof createSender>;

function describe(error: unknown, timeoutMs: number): SendResult['error'] {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'WEBHOOK_TARGET_FORBIDDEN')
    return { error: 'WEBHOOK_TARGET_FORBIDDEN', message: e.message ?? e.cause?.message ?? 'target refused' };
  if (
    e.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return { error: 'WEBHOOK_TIMEOUT', message: `no answer within ${timeoutMs / 1000} s` };
  return {
    error: 'WEBHOOK_DELIVERY_FAILED',
    message: `could not reach the receiver (${code ?? e.message ?? 'error'})`,
  };
}
