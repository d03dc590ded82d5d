import adyen from '@adyen/api-library';
import type { AuthorizeOutcome } from '../types.js';

const { HttpClientException } = adyen;

/** How an SDK call that threw ended, as far as what the processor did is concerned. */
export type CallFailure =
  /** An answer came: Adyen's (or a proxy's) error status. */
  | { kind: 'answered'; status: number; errorCode?: string; message: string }
  /** The request never reached the processor: the connection or its TLS handshake failed. */
  | { kind: 'not-sent'; message: string }
  /** The request may have arrived and been acted on; no answer came. */
  | { kind: 'no-answer'; message: string };

/**
 * The SDK reports a socket error as an ApiException carrying only Node's message, whose form for a
 * failed connection is `<syscall> <code> …` (`connect ECONNREFUSED …`, `getaddrinfo ENOTFOUND …`);
 * TLS verification failures name the certificate. Anything after the connection (`socket hang up`
 * from a reset or from the SDK's time-out, `read ECONNRESET`) is an unknown outcome.
 */
const BEFORE_SENDING = [/^connect E[A-Z]+/, /^getaddrinfo E[A-Z_]+/, /certificate/i, /altnames/];

export function failureOf(error: unknown): CallFailure {
  if (error instanceof HttpClientException && error.statusCode > 0) {
    return { kind: 'answered', status: error.statusCode, errorCode: error.errorCode, message: error.message };
  }
  const message = error instanceof Error || isMessage(error) ? error.message : String(error);
  if (BEFORE_SENDING.some((pattern) => pattern.test(message))) return { kind: 'not-sent', message };
  return { kind: 'no-answer', message };
}

const isMessage = (value: unknown): value is { message: string } =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/**
 * Answers Adyen documents as "the request was not processed": 500 ("the server could not process the
 * request"), 503 and 429 (throttled). A 502 or 504 comes from a hop in between that may have passed
 * the request on, so it stays unknown.
 */
const NOT_PROCESSED_STATUSES = new Set([429, 500, 503]);

/** Adyen's error code for an idempotency key already used by another request or still in flight. */
const IDEMPOTENCY_KEY_IN_USE = '704';

/**
 * A failed authorization call. Safe to try elsewhere only when Adyen cannot have acted: the request
 * never left, or Adyen answered that it did not process it. A key in use (704) means our own first
 * request may still be under way; every other lack of an answer is unknown and is reconciled.
 */
export function authorizationFailure(failure: CallFailure): AuthorizeOutcome {
  switch (failure.kind) {
    case 'not-sent':
      return { kind: 'error', retryable: true, message: `Adyen unreachable: ${failure.message}` };
    case 'no-answer':
      return { kind: 'timeout' };
    case 'answered':
      if (NOT_PROCESSED_STATUSES.has(failure.status))
        return { kind: 'error', retryable: true, message: failure.message };
      if (failure.errorCode === IDEMPOTENCY_KEY_IN_USE || failure.status >= 500) return { kind: 'timeout' };
      return { kind: 'error', retryable: false, message: failure.message };
  }
}
