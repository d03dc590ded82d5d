/**
 * Every failure the SDK reports is a GatewayError. The gateway answers errors in two shapes (the
 * error-guide `{ error, message, code, details, timestamp, requestId }`, and on /payments and /customers
 * the RFC 9457 problem record `{ type, title, status, detail, code, error, details, requestId, … }`);
 * both become the same fields here, and `shape` says which one came.
 */
export type ErrorShape = 'error-guide' | 'problem' | 'none';

export interface GatewayErrorInit {
  status: number;
  /** The gateway's symbolic name: VALIDATION_ERROR, CARD_DECLINED, IDEMPOTENCY_KEY_IN_USE, … */
  error: string;
  /** The gateway's code for it: VAL001, PAY002, IDEM001, … (empty when the gateway gave none). */
  code: string;
  message: string;
  details?: Record<string, unknown>;
  requestId?: string;
  shape: ErrorShape;
  /** A declined or failed payment's id: the payment is stored and can be read. */
  paymentId?: number;
  /** The answer's Retry-After, in milliseconds, when it had one. */
  retryAfterMs?: number;
  /** The whole error body as the gateway sent it. */
  body?: unknown;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly error: string;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly requestId: string | undefined;
  readonly shape: ErrorShape;
  readonly paymentId: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly body: unknown;

  constructor(init: GatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.error = init.error;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId;
    this.shape = init.shape;
    this.paymentId = init.paymentId;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }
}

/** 400: the request is malformed (VALIDATION_ERROR names `details.missingFields`, INVALID_FORMAT `details.field`). */
export class InvalidRequestError extends GatewayError {}
/** 401: the API key is missing, wrong or revoked. */
export class AuthenticationError extends GatewayError {}
/** 402: the payment was declined; `paymentId` names the failed payment. */
export class PaymentDeclinedError extends GatewayError {}
/** 403: the key may not do this (a test key on live data, a restricted merchant, …). */
export class PermissionError extends GatewayError {}
/** 404: no such object for this key. */
export class NotFoundError extends GatewayError {}
/** 409 or 422: the object's state forbids it, or the idempotency key belongs to another request. */
export class ConflictError extends GatewayError {}
/** 429: rate limited, after the retries the client was allowed. */
export class RateLimitError extends GatewayError {}
/** 5xx: the gateway or the processor failed, after the retries the client was allowed. */
export class ServerError extends GatewayError {}
/** No answer at all (connection refused or reset, timeout), after the retries the client was allowed. */
export class ConnectionError extends GatewayError {}

const BY_STATUS: Record<number, typeof GatewayError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: PaymentDeclinedError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: ConflictError,
  429: RateLimitError,
};

/** The error an answer of the gateway stands for, from either of its error shapes. */
export function errorFromAnswer(status: number, body: unknown, headers: Headers): GatewayError {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const problem = typeof record.type === 'string' && typeof record.title === 'string';
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : GatewayError);
  const retryAfterMs = retryAfterOf(headers);
  return new Class({
    status,
    error: text(record.error) ?? `HTTP_${status}`,
    code: text(record.code) ?? '',
    message:
      (problem ? text(record.detail) : text(record.message)) ??
      (typeof body === 'string' && body ? body : `The gateway answered ${status}`),
    details:
      typeof record.details === 'object' && record.details !== null ? (record.details as Record<string, unknown>) : {},
    requestId: text(record.requestId) ?? headers.get('x-request-id') ?? undefined,
    shape: problem ? 'problem' : 'error' in record ? 'error-guide' : 'none',
    paymentId: typeof record.paymentId === 'number' ? record.paymentId : undefined,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    body,
  });
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterOf(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
